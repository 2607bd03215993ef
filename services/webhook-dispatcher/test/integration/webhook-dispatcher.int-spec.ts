import { createServiceApp } from '@lx/platform';
import { CONSUMER_OFFSETS_COLUMNS, describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadWebhookDispatcherConfig } from '../../src/config/webhook-dispatcher.config';

describeServiceSmoke({
  name: 'webhook-dispatcher',
  schema: 'webhook_dispatcher',
  tables: {
    consumer_offsets: CONSUMER_OFFSETS_COLUMNS,
    deliveries: [
      'id uuid not null',
      'client_id text not null',
      'event_id uuid not null',
      'event_type text not null',
      'url text not null',
      'payload jsonb not null',
      'status text not null',
      'attempts integer not null',
      'next_attempt_at timestamp with time zone',
      'last_status_code integer',
      'last_error text',
      'created_at timestamp with time zone not null',
      'delivered_at timestamp with time zone',
    ],
    subscriptions: [
      'client_id text not null',
      'webhook_url text',
      'signing_secret_encrypted bytea',
      'enabled boolean not null',
      'updated_at timestamp with time zone not null',
    ],
  },
  readiness: ['database', 'kafka'],
  required: ['DATABASE_URL', 'KAFKA_BROKERS'],
  loadConfig: loadWebhookDispatcherConfig,
  createApp: async (env) => {
    const config = loadWebhookDispatcherConfig(env);
    return createServiceApp('webhook-dispatcher', AppModule.register(config), config.http);
  },
});
