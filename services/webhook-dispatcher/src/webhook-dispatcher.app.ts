import type { CustomTransportStrategy } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { EventBus } from '@lx/messaging';
import { createServiceApp } from '@lx/platform';
import { AppModule } from './app.module';
import type { WebhookDispatcherConfig } from './config/webhook-dispatcher.config';
import { WEBHOOK_INTAKE } from './delivery/intake/webhook-intake.server';

/**
 * The dispatcher as a hybrid application: the HTTP service (health, metrics, delivery APIs) with the intake's
 * transport connected (Kafka, or the shared event log of the embedded profile). `start` initialises it (migrations,
 * topics, the subscriptions projection, the dispatcher) before the intake joins its group.
 */
export async function createWebhookDispatcherApp(
  config: WebhookDispatcherConfig,
  adapters: { eventBus?: EventBus } = {},
): Promise<{ app: NestFastifyApplication; start: () => Promise<void> }> {
  const app = await createServiceApp('webhook-dispatcher', AppModule.register(config, adapters), config.http);
  app.connectMicroservice({ strategy: app.get<CustomTransportStrategy>(WEBHOOK_INTAKE) });
  return {
    app,
    start: async () => {
      await app.init();
      await app.startAllMicroservices();
    },
  };
}
