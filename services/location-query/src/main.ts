import 'reflect-metadata';
import { createServiceApp, runMain } from '@lx/platform';
import { AppModule } from './app.module';
import { loadLocationQueryConfig } from './config/location-query.config';

runMain(async () => {
  const config = loadLocationQueryConfig();
  const app = await createServiceApp('location-query', AppModule.register(config), config.http);
  await app.listen(config.http.port, config.http.host);
  return app;
});
