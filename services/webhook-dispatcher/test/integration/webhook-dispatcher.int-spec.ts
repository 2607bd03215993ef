import { createServiceApp } from '@lx/platform';
import { describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadWebhookDispatcherConfig } from '../../src/config/webhook-dispatcher.config';

describeServiceSmoke({
  name: 'webhook-dispatcher',
  schema: 'webhook_dispatcher',
  tables: ['consumer_offsets', 'deliveries', 'subscriptions'],
  readiness: ['database', 'kafka'],
  required: ['DATABASE_URL', 'KAFKA_BROKERS'],
  loadConfig: loadWebhookDispatcherConfig,
  createApp: async (env) => {
    const config = loadWebhookDispatcherConfig(env);
    return createServiceApp('webhook-dispatcher', AppModule.register(config), config.http);
  },
});
