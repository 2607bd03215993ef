import { type DynamicModule, Module } from '@nestjs/common';
import { EventBusReadinessCheck, MessagingModule, ProjectionModule, projectionReadinessToken } from '@lx/messaging';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
} from '@lx/platform';
import type { WebhookDispatcherConfig } from './config/webhook-dispatcher.config';
import { MIGRATIONS } from './database/migrations';
import { DeliveryModule } from './delivery/delivery.module';
import { WebhookIntakeServer } from './delivery/intake/webhook-intake.server';
import { SubscriptionsProjection } from './subscriptions/subscriptions.projection';

@Module({})
export class AppModule {
  static register(config: WebhookDispatcherConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule,
        AuthenticationModule.forRoot({ config: config.auth }),
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.kafka),
        DeliveryModule.register(config),
        ProjectionModule.register({
          name: 'subscriptions',
          groupId: `${config.intake.groupId}-subscriptions`,
          batchSize: 500,
          concurrency: 1,
          projection: SubscriptionsProjection,
        }),
        HealthModule.forRoot([
          DatabaseReadinessCheck,
          EventBusReadinessCheck,
          WebhookIntakeServer,
          projectionReadinessToken('subscriptions'),
        ]),
      ],
    };
  }
}
