import { TOPICS } from '@lx/contracts';
import { createServiceApp } from '@lx/platform';
import {
  CONSUMER_OFFSETS_COLUMNS,
  describeServiceSmoke,
  positionAtLogEnd,
  RATE_LIMIT_COUNTS_COLUMNS,
  testKafka,
  uniqueSuffix,
} from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadStatisticsProjectionConfig } from '../../src/config/statistics-projection.config';
import { MIGRATIONS } from '../../src/database/migrations';

/** The dimensions every counters table is keyed by. */
const COUNTED_COLUMNS = [
  'status text not null',
  'has_address boolean not null',
  'has_coordinates boolean not null',
  'has_location_group boolean not null',
];

describeServiceSmoke({
  name: 'statistics-projection',
  schema: 'statistics_projection',
  tables: {
    consumer_offsets: CONSUMER_OFFSETS_COLUMNS,
    rate_limit_counts: RATE_LIMIT_COUNTS_COLUMNS,
    location_counters: [...COUNTED_COLUMNS, 'locations bigint not null'],
    location_day_counters: ['day date not null', ...COUNTED_COLUMNS, 'locations bigint not null'],
    location_rollups: [
      'scope text not null',
      'granularity text not null',
      'location_group_id text not null',
      'country text not null',
      'region text not null',
      'period date not null',
      ...COUNTED_COLUMNS,
      'locations bigint not null',
    ],
    location_facts: [
      'location_id uuid not null',
      'version integer not null',
      'status text',
      'has_address boolean not null',
      'has_coordinates boolean not null',
      'location_group_id uuid',
      'address_group_id uuid',
      'country text not null',
      'region text not null',
      'locality text not null',
      'postal_code text not null',
      'updated_at timestamp with time zone not null',
    ],
    location_geo_counters: [
      'country text not null',
      'region text not null',
      ...COUNTED_COLUMNS,
      'locations bigint not null',
    ],
  },
  readiness: ['database', 'kafka', 'projection'],
  required: ['DATABASE_URL'],
  loadConfig: loadStatisticsProjectionConfig,
  createApp: async (env) => {
    // A group of its own, positioned at the end of the file's topic: the smoke test reads no history.
    const groupId = `it-sp-smoke-${uniqueSuffix()}`;
    const config = loadStatisticsProjectionConfig({ ...env, PROJECTION_GROUP_ID: groupId });
    await positionAtLogEnd({
      databaseUrl: config.database.url,
      ssl: config.database.ssl,
      kafka: testKafka(),
      schema: 'statistics_projection',
      groupId,
      topics: [TOPICS.locationEvents.name],
      migrations: MIGRATIONS,
    });
    return createServiceApp('statistics-projection', AppModule.register(config), config.http);
  },
});
