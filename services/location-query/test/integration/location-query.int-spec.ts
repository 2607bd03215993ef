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
import { loadLocationQueryConfig } from '../../src/config/location-query.config';
import { MIGRATIONS } from '../../src/database/migrations';

const GROUP_COLUMNS = [
  'id uuid not null',
  'version integer not null',
  'name text not null',
  'type text not null',
  'deleted boolean not null',
  'changed_at timestamp with time zone not null',
  'deleted_at timestamp with time zone',
  'digest_key bigint not null',
  'digest_hash bigint not null',
];

describeServiceSmoke({
  name: 'location-query',
  schema: 'location_query',
  tables: {
    address_groups: GROUP_COLUMNS,
    change_feed_state: [
      'singleton boolean not null',
      'epoch text not null',
      'purged_tx_id xid8 not null',
      'purged_seq bigint not null',
      'purged_at timestamp with time zone',
    ],
    consumer_offsets: CONSUMER_OFFSETS_COLUMNS,
    rate_limit_counts: RATE_LIMIT_COUNTS_COLUMNS,
    digest_nodes: [
      'resource text not null',
      'node integer not null',
      'slot integer not null',
      'count bigint not null',
      'hash bigint not null',
    ],
    location_changes: [
      'tx_id xid8 not null',
      'seq bigint not null',
      'event_id uuid not null',
      'resource_type text not null',
      'resource_id uuid not null',
      'version integer not null',
      'occurred_at timestamp with time zone not null',
      'body json not null',
    ],
    location_groups: GROUP_COLUMNS,
    locations: [
      'id uuid not null',
      'version integer not null',
      'body json not null',
      'location_group_id uuid',
      'address_group_id uuid',
      'updated_at timestamp with time zone not null',
      'csv text not null',
      'digest_key bigint not null',
      'digest_hash bigint not null',
    ],
  },
  readiness: ['database', 'kafka', 'projection', 'changes'],
  required: ['DATABASE_URL'],
  loadConfig: loadLocationQueryConfig,
  createApp: async (env) => {
    // A group of its own, positioned at the end of the file's topics: the smoke test reads no history.
    const groupId = `it-lq-smoke-${uniqueSuffix()}`;
    const config = loadLocationQueryConfig({ ...env, PROJECTION_GROUP_ID: groupId });
    await positionAtLogEnd({
      databaseUrl: config.database.url,
      ssl: config.database.ssl,
      kafka: testKafka(),
      schema: 'location_query',
      groupId,
      topics: [TOPICS.locationEvents.name, TOPICS.locationGroupEvents.name, TOPICS.addressGroupEvents.name],
      migrations: MIGRATIONS,
    });
    return createServiceApp('location-query', AppModule.register(config), config.http);
  },
});
