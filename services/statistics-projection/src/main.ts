import 'reflect-metadata';
import { createServiceApp, runMain } from '@lx/platform';
import { AppModule } from './app.module';
import { loadStatisticsProjectionConfig } from './config/statistics-projection.config';

runMain(async () => {
  const config = loadStatisticsProjectionConfig();
  const app = await createServiceApp('statistics-projection', AppModule.register(config), config.http);
  await app.listen(config.http.port, config.http.host);
  return app;
});
