import { createServiceApp } from '@lx/platform';
import { describeServiceSmoke, OUTBOX_COLUMNS } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadExportWorkerConfig } from '../../src/config/export-worker.config';
import { PEERLESS_EXPORT_WORKER_ENV } from '../support/export-worker-harness';

describeServiceSmoke({
  name: 'export-worker',
  schema: 'export_worker',
  tables: {
    export_requests: [
      'id uuid not null',
      'client_id text not null',
      'format text not null',
      'modified_since timestamp with time zone',
      'status text not null',
      'attempts integer not null',
      'object_key text',
      'export_url text',
      'download_expires_at timestamp with time zone',
      'export_timestamp timestamp with time zone',
      'total_count integer',
      'error_code text',
      'error_message text',
      'created_at timestamp with time zone not null',
      'updated_at timestamp with time zone not null',
      'location_group_id uuid',
      'idempotency_key text',
      'request_hash text',
      'lease_owner text',
      'lease_expires_at timestamp with time zone',
      'next_attempt_at timestamp with time zone not null',
      'rows_written bigint not null',
      'rows_total bigint',
      'sha256 text',
      'size_bytes bigint',
      'file_expires_at timestamp with time zone',
      'file_deleted_at timestamp with time zone',
      'include_versions boolean not null',
      'spreadsheet_safe boolean not null',
      'trace_parent text',
    ],
    export_rate_windows: [
      'client_id text not null',
      'window_start timestamp with time zone not null',
      'requests integer not null',
    ],
    outbox: OUTBOX_COLUMNS,
  },
  readiness: ['database', 'kafka', 'objectStore'],
  required: ['DATABASE_URL', 'AUTH_TOKEN_URL', 'SERVICE_CLIENT_ID', 'SERVICE_CLIENT_SECRET'],
  loadConfig: loadExportWorkerConfig,
  createApp: async (env) => {
    const config = loadExportWorkerConfig({ ...PEERLESS_EXPORT_WORKER_ENV, ...env });
    return createServiceApp('export-worker', AppModule.register(config), config.http);
  },
});
