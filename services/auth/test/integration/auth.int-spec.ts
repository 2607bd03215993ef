import { randomBytes } from 'node:crypto';
import { createServiceApp } from '@lx/platform';
import { describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadAuthConfig } from '../../src/config/auth.config';

const AUTH_ENCRYPTION_KEY = randomBytes(32).toString('base64');

describeServiceSmoke({
  name: 'auth',
  schema: 'auth',
  tables: ['clients', 'outbox', 'signing_keys', 'token_failures'],
  readiness: ['database', 'kafka'],
  required: ['DATABASE_URL', 'KAFKA_BROKERS', 'AUTH_ENCRYPTION_KEY'],
  loadConfig: loadAuthConfig,
  createApp: async (env) => {
    const config = loadAuthConfig({ AUTH_ENCRYPTION_KEY, ...env });
    return createServiceApp('auth', AppModule.register(config), config.http);
  },
});
