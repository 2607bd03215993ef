import { WakeUp } from '@lx/platform';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { type Notification, type Recipients, DeliveryRepository } from '../infrastructure/delivery.repository';
import { notificationOf, type WebhookEvent } from './notification';

/** Events recorded in one statement at most. */
const BATCH = 1000;

interface Pending {
  item: { notification: Notification; recipients: Recipients };
  resolve: (created: number) => void;
  reject: (error: unknown) => void;
}

/**
 * Turns one consumed event into its notification and one PENDING delivery per recipient, idempotently: Kafka may
 * deliver the event again (a rebalance, a crash before the offset commit) and the unique delivery per event and
 * client makes the second time add nothing. Resolves once the records are committed, with the number of deliveries
 * created. The intake hands over many events at once (a whole fetched batch): those that arrive while a write is in
 * progress are written together in the next one, one statement and one commit for up to 1,000 events.
 */
@Injectable()
export class RecordEventHandler implements OnApplicationShutdown {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly wakeUp: WakeUp,
  ) {}

  execute(event: WebhookEvent, correlationId?: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ item: notificationOf(event, correlationId), resolve, reject });
      this.writing ??= this.writeAll();
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.writing;
  }

  /** Writes the queue in batches until it is empty; a batch waits one turn of the event loop for more events. */
  private async writeAll(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        const created = await this.deliveries.record(batch.map((pending) => pending.item));
        if (created.size > 0) this.wakeUp.notify();
        // An event twice in one batch (Kafka redelivered it) created its deliveries once: the first copy counts them.
        for (const pending of batch) {
          const eventId = pending.item.notification.eventId;
          pending.resolve(created.get(eventId) ?? 0);
          created.delete(eventId);
        }
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    this.writing = undefined;
  }
}
