import 'reflect-metadata';
import { createServiceApp, runMain } from '@lx/platform';
import { AppModule } from './app.module';
import { loadAuthConfig } from './config/auth.config';

runMain(async () => {
  const config = loadAuthConfig();
  const app = await createServiceApp('auth', AppModule.register(config), config.http);
  await app.listen(config.http.port, config.http.host);
  return app;
});
