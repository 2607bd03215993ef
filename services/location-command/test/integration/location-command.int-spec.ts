import { createServiceApp } from '@lx/platform';
import { OUTBOX_COLUMNS, describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadLocationCommandConfig } from '../../src/config/location-command.config';

describeServiceSmoke({
  name: 'location-command',
  schema: 'location_command',
  tables: {
    aggregate_state: [
      'stream_id uuid not null',
      'stream_type text not null',
      'version integer not null',
      'deleted boolean not null',
      'location_group_id uuid',
      'address_group_id uuid',
      'serviceability_status text',
      'updated_at timestamp with time zone not null',
      'last_tx xid8 not null',
    ],
    events: [
      'global_position bigint not null',
      'stream_id uuid not null',
      'stream_type text not null',
      'stream_version integer not null',
      'event_id uuid not null',
      'event_type text not null',
      'payload json not null',
      'recorded_at timestamp with time zone not null',
      'tx_id xid8 not null',
      'correlation_id text',
      'trace_parent text',
    ],
    idempotency_keys: [
      'client_id text not null',
      'idempotency_key text not null',
      'request_hash text not null',
      'stream_id uuid not null',
      'created_at timestamp with time zone not null',
    ],
    // No longer written: kept for one release, for the pods of the previous one during a rolling upgrade.
    outbox: OUTBOX_COLUMNS,
    relay_checkpoint: [
      'singleton boolean not null',
      'tx_id xid8 not null',
      'position bigint not null',
      'updated_at timestamp with time zone not null',
    ],
    watermark_fence: ['singleton boolean not null', 'fenced_at timestamp with time zone not null'],
  },
  readiness: ['database', 'kafka'],
  required: ['DATABASE_URL'],
  loadConfig: loadLocationCommandConfig,
  createApp: async (env) => {
    const config = loadLocationCommandConfig(env);
    return createServiceApp('location-command', AppModule.register(config), config.http);
  },
});
