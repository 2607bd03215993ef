import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServiceApp } from '@lx/platform';
import { AppModule } from './app.module';
import type { WebhookDispatcherConfig } from './config/webhook-dispatcher.config';
import { WebhookIntakeServer } from './delivery/intake/webhook-intake.server';

/**
 * The dispatcher as a hybrid application: the HTTP service (health, metrics, delivery APIs) with the intake's Kafka
 * transport connected. `start` initialises it (migrations, topics, the subscriptions projection, the dispatcher)
 * before the intake joins its group.
 */
export async function createWebhookDispatcherApp(
  config: WebhookDispatcherConfig,
): Promise<{ app: NestFastifyApplication; start: () => Promise<void> }> {
  const app = await createServiceApp('webhook-dispatcher', AppModule.register(config), config.http);
  app.connectMicroservice({ strategy: app.get(WebhookIntakeServer) });
  return {
    app,
    start: async () => {
      await app.init();
      await app.startAllMicroservices();
    },
  };
}
