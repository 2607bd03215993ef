import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServiceApp } from '@lx/platform';
import { AppModule } from './app.module';
import type { WebhookDispatcherConfig } from './config/webhook-dispatcher.config';

/**
 * The dispatcher's application: the HTTP service (health, metrics, delivery APIs), the intake and subscriptions
 * projections on the event bus of EVENT_BUS and the dispatcher. `start` initialises it (migrations, topics,
 * projections, the dispatcher).
 */
export async function createWebhookDispatcherApp(
  config: WebhookDispatcherConfig,
): Promise<{ app: NestFastifyApplication; start: () => Promise<void> }> {
  const app = await createServiceApp('webhook-dispatcher', AppModule.register(config), config.http);
  return { app, start: () => app.init().then(() => undefined) };
}
