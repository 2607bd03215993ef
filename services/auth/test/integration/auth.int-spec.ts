import { randomBytes } from 'node:crypto';
import { createServiceApp } from '@lx/platform';
import { OUTBOX_COLUMNS, describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadAuthConfig } from '../../src/config/auth.config';

const AUTH_ENCRYPTION_KEY = randomBytes(32).toString('base64');
const WEBHOOK_SECRET_TRANSPORT_KEY = randomBytes(32).toString('base64');

describeServiceSmoke({
  name: 'auth',
  schema: 'auth',
  tables: {
    clients: [
      'id uuid not null',
      'name text not null',
      'kind text not null',
      'scopes text[] not null',
      'secret_hash text not null',
      'enabled boolean not null',
      'webhook_url text',
      'webhook_secret_encrypted bytea',
      'created_at timestamp with time zone not null',
      'updated_at timestamp with time zone not null',
      'version integer not null',
      'tokens_issued_before timestamp with time zone',
    ],
    outbox: OUTBOX_COLUMNS,
    signing_keys: [
      'kid text not null',
      'algorithm text not null',
      'public_jwk jsonb not null',
      'private_key_encrypted bytea not null',
      'created_at timestamp with time zone not null',
      'retired_at timestamp with time zone',
      'activated_at timestamp with time zone',
      'revoked_at timestamp with time zone',
    ],
    // Left for the pods of the release before during a rolling upgrade; no longer used.
    token_failures: [
      'client_id uuid not null',
      'window_start timestamp with time zone not null',
      'failures integer not null',
    ],
    token_known_sources: [
      'client_id uuid not null',
      'source text not null',
      'last_success_at timestamp with time zone not null',
    ],
    token_throttle: [
      'subject text not null',
      'window_start timestamp with time zone not null',
      'failures integer not null',
      'pending integer not null',
    ],
  },
  readiness: ['database', 'kafka'],
  required: ['DATABASE_URL', 'AUTH_ENCRYPTION_KEY', 'WEBHOOK_SECRET_TRANSPORT_KEY'],
  loadConfig: loadAuthConfig,
  createApp: async (env) => {
    const config = loadAuthConfig({ AUTH_ENCRYPTION_KEY, WEBHOOK_SECRET_TRANSPORT_KEY, ...env });
    return createServiceApp('auth', AppModule.register(config), config.http);
  },
});
