import { type DynamicModule, Module } from '@nestjs/common';
import {
  EventBusReadinessCheck,
  MessagingModule,
  OutboxModule,
  ProjectionModule,
  projectionReadinessToken,
} from '@lx/messaging';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
  ReadPoolModule,
} from '@lx/platform';
import type { WebhookDispatcherConfig } from './config/webhook-dispatcher.config';
import { MIGRATIONS } from './database/migrations';
import { DeliveryModule } from './delivery/delivery.module';
import { NotificationLogProjection } from './delivery/intake/notification-log.projection';
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
        ReadPoolModule.forRoot(config.database, config.readPool),
        MessagingModule.forRoot(config.eventBus),
        OutboxModule.forRoot(config.outbox),
        DeliveryModule.register(config),
        ProjectionModule.register({
          name: 'notifications',
          groupId: config.intake.groupId,
          batchSize: 1_000,
          concurrency: config.intake.concurrency,
          projection: NotificationLogProjection,
          startAt: 'end',
        }),
        ProjectionModule.register({
          name: 'subscriptions',
          groupId: `${config.intake.groupId}-subscriptions`,
          batchSize: 500,
          concurrency: 1,
          projection: SubscriptionsProjection,
        }),
        HealthModule.forRoot(
          [
            DatabaseReadinessCheck,
            EventBusReadinessCheck,
            projectionReadinessToken('notifications'),
            projectionReadinessToken('subscriptions'),
          ],
          config.http.readinessGraceMs,
        ),
      ],
    };
  }
}
