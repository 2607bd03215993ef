import { createServiceApp } from '@lx/platform';
import { describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadExportWorkerConfig } from '../../src/config/export-worker.config';

describeServiceSmoke({
  name: 'export-worker',
  schema: 'export_worker',
  tables: ['export_requests'],
  readiness: ['database', 'kafka', 'objectStore'],
  required: ['DATABASE_URL', 'KAFKA_BROKERS', 'MINIO_ENDPOINT_URL', 'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY'],
  loadConfig: loadExportWorkerConfig,
  createApp: async (env) => {
    const config = loadExportWorkerConfig(env);
    return createServiceApp('export-worker', AppModule.register(config), config.http);
  },
});
