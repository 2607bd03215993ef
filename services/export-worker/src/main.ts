import 'reflect-metadata';
import { createServiceApp, runMain } from '@lx/platform';
import { AppModule } from './app.module';
import { loadExportWorkerConfig } from './config/export-worker.config';

runMain(async () => {
  const config = loadExportWorkerConfig();
  const app = await createServiceApp('export-worker', AppModule.register(config), config.http);
  await app.listen(config.http.port, config.http.host);
  return app;
});
