import { Injectable } from '@nestjs/common';
import { type EventType, TOPICS, type TopicName, WEBHOOK_EVENT_TYPES } from '@lx/contracts';
import type { ProjectedEvent, Projection, ProjectionTransaction } from '@lx/messaging';
import { DeliveryMetrics } from '../infrastructure/delivery-metrics';
import { NotificationLogRepository } from '../infrastructure/notification-log.repository';
import { notificationOf, type WebhookEvent } from './notification';

/**
 * The intake: location, group and export events become the notification log, one row per event, through the shared
 * projection consumer (a batch of one partition and its consumed offsets in one transaction, redeliveries skipped,
 * invalid events dead-lettered). Its consumer group starts at the end of the topics as they stood when it first met
 * them (no history is sent to RSPs); each endpoint then reads the log through its own cursor.
 */
@Injectable()
export class NotificationLogProjection implements Projection {
  readonly name = 'webhook-notifications';
  readonly topics: readonly TopicName[] = [
    TOPICS.locationEvents.name,
    TOPICS.locationGroupEvents.name,
    TOPICS.addressGroupEvents.name,
    TOPICS.exportEvents.name,
  ];
  readonly eventTypes: readonly EventType[] = WEBHOOK_EVENT_TYPES;

  constructor(
    private readonly log: NotificationLogRepository,
    private readonly metrics: DeliveryMetrics,
  ) {}

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    const appended = await this.log.append(
      transaction,
      events.map((projected) => ({
        ...notificationOf(projected.event as WebhookEvent, projected.version, projected.correlationId),
        ...(projected.traceParent === undefined ? {} : { traceParent: projected.traceParent }),
      })),
    );
    this.metrics.events.inc({ outcome: 'logged' }, appended);
    if (events.length > appended) this.metrics.events.inc({ outcome: 'repeated' }, events.length - appended);
  }
}
