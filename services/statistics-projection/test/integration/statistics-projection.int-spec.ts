import { createServiceApp } from '@lx/platform';
import { describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadStatisticsProjectionConfig } from '../../src/config/statistics-projection.config';

describeServiceSmoke({
  name: 'statistics-projection',
  schema: 'statistics_projection',
  tables: ['consumer_offsets', 'location_facts'],
  readiness: ['database', 'kafka'],
  required: ['DATABASE_URL', 'KAFKA_BROKERS'],
  loadConfig: loadStatisticsProjectionConfig,
  createApp: async (env) => {
    const config = loadStatisticsProjectionConfig(env);
    return createServiceApp('statistics-projection', AppModule.register(config), config.http);
  },
});
