import { type DynamicModule, Module } from '@nestjs/common';
import {
  Clock,
  IdGenerator,
  MathRandom,
  RandomSource,
  SystemClock,
  TimeOrderedUuidGenerator,
  WakeUp,
  WebhookSecretTransport,
} from '@lx/platform';
import { WEBHOOK_DISPATCHER_CONFIG, type WebhookDispatcherConfig } from '../config/webhook-dispatcher.config';
import { ChooseEventTypesHandler } from './commands/choose-event-types/choose-event-types.handler';
import { EnableEndpointHandler } from './commands/enable-endpoint/enable-endpoint.handler';
import { RedriveDeadDeliveriesHandler } from './commands/redrive-dead-deliveries/redrive-dead-deliveries.handler';
import { RedriveDeliveryHandler } from './commands/redrive-delivery/redrive-delivery.handler';
import { WebhookAdminController } from './http/webhook-admin.controller';
import { WebhookDeliveriesController } from './http/webhook-deliveries.controller';
import { DeliveryRepository } from './infrastructure/delivery.repository';
import { EndpointEventsPublisher } from './infrastructure/endpoint-events.publisher';
import { EndpointOwnership } from './infrastructure/endpoint-ownership';
import { NotificationLogRepository } from './infrastructure/notification-log.repository';
import { DeliveryRecordsRepository } from './infrastructure/delivery-records.repository';
import { DeliveryMetrics } from './infrastructure/delivery-metrics';
import { WebhookSecrets } from './infrastructure/webhook-secrets';
import { GetDeliveryHandler } from './queries/get-delivery/get-delivery.handler';
import { GetEndpointsHandler } from './queries/get-endpoints/get-endpoints.handler';
import { ListDeliveriesHandler } from './queries/list-deliveries/list-deliveries.handler';
import { AttemptDeliveryHandler } from './sending/attempt-delivery.handler';
import { DeliveryDispatcher } from './sending/delivery-dispatcher';
import { WebhookSender } from './sending/webhook-sender';

/**
 * Webhook deliveries: the notification log (which the intake projection appends to), the dispatcher that reads it
 * through a cursor per endpoint, the secrets that sign them, and the SRE and RSP APIs over the delivery records.
 * Global, so the projections (intake, subscriptions) find its providers.
 */
@Module({})
export class DeliveryModule {
  static register(config: WebhookDispatcherConfig): DynamicModule {
    return {
      module: DeliveryModule,
      global: true,
      controllers: [WebhookDeliveriesController, WebhookAdminController],
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
        WebhookSecrets,
        DeliveryRepository,
        NotificationLogRepository,
        EndpointOwnership,
        EndpointEventsPublisher,
        DeliveryRecordsRepository,
        DeliveryMetrics,
        // Wakes this replica's dispatcher when a redrive made a delivery due.
        WakeUp,
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
      exports: [WebhookSecrets, NotificationLogRepository, DeliveryMetrics],
    };
  }
}
