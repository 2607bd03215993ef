import { createServiceApp } from '@lx/platform';
import { describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadAuthConfig } from '../../src/config/auth.config';

describeServiceSmoke({
  name: 'auth',
  schema: 'auth',
  tables: ['clients', 'signing_keys'],
  readiness: ['database', 'kafka'],
  required: ['DATABASE_URL', 'KAFKA_BROKERS'],
  loadConfig: loadAuthConfig,
  createApp: async (env) => {
    const config = loadAuthConfig(env);
    return createServiceApp('auth', AppModule.register(config), config.http);
  },
});
