import { createServiceApp } from '@lx/platform';
import { describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadLocationCommandConfig } from '../../src/config/location-command.config';

describeServiceSmoke({
  name: 'location-command',
  schema: 'location_command',
  tables: ['aggregate_state', 'events', 'outbox'],
  readiness: ['database', 'kafka'],
  required: ['DATABASE_URL', 'KAFKA_BROKERS'],
  loadConfig: loadLocationCommandConfig,
  createApp: async (env) => {
    const config = loadLocationCommandConfig(env);
    return createServiceApp('location-command', AppModule.register(config), config.http);
  },
});
