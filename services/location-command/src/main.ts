import 'reflect-metadata';
import { createServiceApp, runMain } from '@lx/platform';
import { AppModule } from './app.module';
import { loadLocationCommandConfig } from './config/location-command.config';

runMain(async () => {
  const config = loadLocationCommandConfig();
  const app = await createServiceApp('location-command', AppModule.register(config), config.http);
  await app.listen(config.http.port, config.http.host);
  return app;
});
