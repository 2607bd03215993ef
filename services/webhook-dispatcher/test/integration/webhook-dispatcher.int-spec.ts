import { randomBytes } from 'node:crypto';
import { TOPICS } from '@lx/contracts';
import {
  kafkaOf,
  CONSUMER_OFFSETS_COLUMNS,
  describeServiceSmoke,
  OUTBOX_COLUMNS,
  positionAtLogEnd,
  uniqueSuffix,
} from '@lx/testing';
import { loadWebhookDispatcherConfig } from '../../src/config/webhook-dispatcher.config';
import { MIGRATIONS } from '../../src/database/migrations';
import { startWebhookDispatcherApp } from '../support/dispatcher-harness';

describeServiceSmoke({
  name: 'webhook-dispatcher',
  schema: 'webhook_dispatcher',
  tables: {
    consumer_offsets: CONSUMER_OFFSETS_COLUMNS,
    outbox: OUTBOX_COLUMNS,
    subscriptions: [
      'client_id text not null',
      'version integer not null',
      'enabled boolean not null',
      'webhook_url text',
      'secret_sealed text',
      'secret_version integer',
      'previous_secret_sealed text',
      'previous_secret_version integer',
      'secret_rotated_at timestamp with time zone',
      'event_types text[]',
      'consecutive_failures integer not null',
      'disabled_at timestamp with time zone',
      'disabled_reason text',
      'updated_at timestamp with time zone not null',
      'endpoint_no bigint not null',
      'cursor_position bigint not null',
      'start_position bigint not null',
      'start_at timestamp with time zone',
      'lane_epoch bigint not null',
    ],
    notifications: [
      'event_id uuid not null',
      'event_type text not null',
      'path text not null',
      'body text not null',
      'headers jsonb not null',
      'correlation_id text',
      'occurred_at timestamp with time zone not null',
      'created_at timestamp with time zone not null',
      'position bigint not null',
      'recipient text',
      'location_id text',
      'trace_parent text',
    ],
    deliveries: [
      'id uuid not null',
      'event_id uuid not null',
      'client_id text not null',
      'status text not null',
      'attempts integer not null',
      'schedule_start integer not null',
      'next_attempt_at timestamp with time zone',
      'last_attempt_at timestamp with time zone',
      'last_status_code integer',
      'last_error text',
      'created_at timestamp with time zone not null',
      'finished_at timestamp with time zone',
    ],
    delivery_attempts: [
      'delivery_id uuid not null',
      'attempt integer not null',
      'attempted_at timestamp with time zone not null',
      'url text not null',
      'status_code integer',
      'latency_ms integer not null',
      'response_excerpt text',
      'error text',
    ],
  },
  readiness: ['database', 'kafka', 'notifications', 'subscriptions'],
  required: ['DATABASE_URL', 'WEBHOOK_SECRET_TRANSPORT_KEY'],
  loadConfig: loadWebhookDispatcherConfig,
  createApp: async (env) => {
    const config = loadWebhookDispatcherConfig({
      ...env,
      WEBHOOK_CONSUMER_GROUP: `webhook-smoke-${uniqueSuffix()}`,
      WEBHOOK_SECRET_TRANSPORT_KEY: randomBytes(32).toString('base64'),
    });
    // The client topic holds the clients of the file's other tests: the subscriptions start at its end and read none.
    await positionAtLogEnd({
      databaseUrl: config.database.url,
      ssl: config.database.ssl,
      kafka: kafkaOf(config.eventBus),
      schema: config.database.schema,
      groupId: `${config.intake.groupId}-subscriptions`,
      topics: [TOPICS.clientEvents.name],
      migrations: MIGRATIONS,
    });
    return startWebhookDispatcherApp(config);
  },
});
