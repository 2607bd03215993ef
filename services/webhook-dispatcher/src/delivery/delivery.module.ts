import { type DynamicModule, Module } from '@nestjs/common';
import type { EventBus } from '@lx/messaging';
import {
  Clock,
  IdGenerator,
  SystemClock,
  TimeOrderedUuidGenerator,
  WakeUp,
  WebhookSecretTransport,
} from '@lx/platform';
import { WEBHOOK_DISPATCHER_CONFIG, type WebhookDispatcherConfig } from '../config/webhook-dispatcher.config';
import { ChooseEventTypesHandler } from './commands/choose-event-types.handler';
import { EnableEndpointHandler } from './commands/enable-endpoint.handler';
import { RedriveDeadDeliveriesHandler } from './commands/redrive-dead-deliveries.handler';
import { RedriveDeliveryHandler } from './commands/redrive-delivery.handler';
import { WebhookAdminController } from './http/webhook-admin.controller';
import { WebhookDeliveriesController } from './http/webhook-deliveries.controller';
import { RecordEventHandler } from './intake/record-event.handler';
import { WebhookEventsController } from './intake/webhook-events.controller';
import { EventLogIntakeServer } from './intake/event-log-intake.server';
import { WEBHOOK_INTAKE, WebhookIntakeServer } from './intake/webhook-intake.server';
import { DeliveryRepository } from './infrastructure/delivery.repository';
import { EndpointEventsPublisher } from './infrastructure/endpoint-events.publisher';
import { DeliveryRecordsRepository } from './infrastructure/delivery-records.repository';
import { DeliveryMetrics } from './infrastructure/delivery-metrics';
import { WebhookSecrets } from './infrastructure/webhook-secrets';
import { GetDeliveryHandler } from './queries/get-delivery.handler';
import { GetEndpointsHandler } from './queries/get-endpoints.handler';
import { ListDeliveriesHandler } from './queries/list-deliveries.handler';
import { AttemptDeliveryHandler, MathRandom, RandomSource } from './sending/attempt-delivery.handler';
import { DeliveryDispatcher } from './sending/delivery-dispatcher';
import { WebhookSender } from './sending/webhook-sender';

/**
 * Webhook deliveries: the intake (Kafka events to delivery records, through the @nestjs/microservices transport
 * whose server this module provides), the dispatcher that attempts them, the secrets that sign them, and the SRE
 * and RSP APIs over the delivery records. Global, so
 * the subscriptions projection and the readiness checks find its providers.
 */
@Module({})
export class DeliveryModule {
  /** `sharedBus`: the embedded profile's event log, which the intake then consumes instead of Kafka. */
  static register(config: WebhookDispatcherConfig, sharedBus?: EventBus): DynamicModule {
    return {
      module: DeliveryModule,
      global: true,
      controllers: [WebhookEventsController, WebhookDeliveriesController, WebhookAdminController],
      providers: [
        { provide: WEBHOOK_DISPATCHER_CONFIG, useValue: config },
        { provide: Clock, useClass: SystemClock },
        { provide: IdGenerator, useClass: TimeOrderedUuidGenerator },
        { provide: RandomSource, useClass: MathRandom },
        {
          provide: WebhookSecretTransport,
          useFactory: () => new WebhookSecretTransport(Buffer.from(config.secretTransportKeyBase64, 'base64')),
        },
        {
          provide: WebhookSender,
          useFactory: () =>
            new WebhookSender({
              connectTimeoutMs: config.delivery.connectTimeoutMs,
              responseTimeoutMs: config.delivery.responseTimeoutMs,
              allowedAddressKinds: new Set(config.delivery.allowedAddressKinds),
              maxSocketsPerOrigin: config.delivery.endpointConcurrency,
            }),
        },
        {
          provide: WEBHOOK_INTAKE,
          useFactory: () =>
            sharedBus
              ? new EventLogIntakeServer(sharedBus, {
                  groupId: config.intake.groupId,
                  concurrency: config.intake.concurrency,
                })
              : new WebhookIntakeServer({
                  brokers: [...config.kafka.brokers],
                  clientId: `${config.kafka.clientId}-intake`,
                  groupId: config.intake.groupId,
                  topicPrefix: config.kafka.topicPrefix,
                  concurrency: config.intake.concurrency,
                }),
        },
        WebhookSecrets,
        DeliveryRepository,
        EndpointEventsPublisher,
        DeliveryRecordsRepository,
        DeliveryMetrics,
        // Wakes this replica's dispatcher when the intake here created deliveries, or a redrive made one due.
        WakeUp,
        RecordEventHandler,
        AttemptDeliveryHandler,
        DeliveryDispatcher,
        ListDeliveriesHandler,
        GetDeliveryHandler,
        GetEndpointsHandler,
        RedriveDeliveryHandler,
        RedriveDeadDeliveriesHandler,
        EnableEndpointHandler,
        ChooseEventTypesHandler,
      ],
      exports: [WebhookSecrets, WEBHOOK_INTAKE],
    };
  }
}
