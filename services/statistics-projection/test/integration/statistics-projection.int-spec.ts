import { TOPICS } from '@lx/contracts';
import { createServiceApp } from '@lx/platform';
import { describeServiceSmoke, positionAtLogEnd, requireEnv, uniqueSuffix } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadStatisticsProjectionConfig } from '../../src/config/statistics-projection.config';
import { MIGRATIONS } from '../../src/database/migrations';

describeServiceSmoke({
  name: 'statistics-projection',
  schema: 'statistics_projection',
  tables: ['consumer_offsets', 'location_counters', 'location_day_counters', 'location_facts', 'location_geo_counters'],
  readiness: ['database', 'kafka', 'projection'],
  required: ['DATABASE_URL', 'KAFKA_BROKERS'],
  loadConfig: loadStatisticsProjectionConfig,
  createApp: async (env) => {
    // A group of its own, positioned at the end of the shared topic: the smoke test reads no history.
    const groupId = `it-sp-smoke-${uniqueSuffix()}`;
    await positionAtLogEnd({
      databaseUrl: env['DATABASE_URL']!,
      brokers: requireEnv('KAFKA_BROKERS').split(','),
      schema: 'statistics_projection',
      groupId,
      topics: [TOPICS.locationEvents.name],
      migrations: MIGRATIONS,
    });
    const config = loadStatisticsProjectionConfig({ ...env, PROJECTION_GROUP_ID: groupId });
    return createServiceApp('statistics-projection', AppModule.register(config), config.http);
  },
});
