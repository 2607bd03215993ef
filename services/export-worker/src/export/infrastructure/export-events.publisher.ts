import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { KAFKA_HEADERS, TOPICS } from '@lx/contracts';
import { type ExportRequest, exportNotificationOf } from '@lx/domain';
import { contractEvent, Outbox } from '@lx/messaging';
import { Clock, IdGenerator } from '@lx/platform';

/**
 * Appends EXPORT_COMPLETED / EXPORT_FAILED to the outbox inside the transaction that moved the request, so the event
 * exists exactly when the status changed. `data` is the client to notify and the exact notification body the webhook
 * dispatcher sends; the outcome is the request's one event, so its aggregate version is 1.
 */
@Injectable()
export class ExportEventsPublisher {
  constructor(
    private readonly outbox: Outbox,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async append(manager: EntityManager, request: ExportRequest): Promise<void> {
    const notification = exportNotificationOf(request);
    if (notification === undefined) throw new Error(`export ${request.id} has no outcome to publish`);
    const type = notification.status === 'COMPLETED' ? 'EXPORT_COMPLETED' : 'EXPORT_FAILED';
    const event = contractEvent(type, {
      id: this.ids.next(),
      timestamp: this.clock.now().toISOString(),
      source: 'export-worker',
      data: { clientId: request.clientId, notification },
    });
    await this.outbox.append(manager, [
      {
        topic: TOPICS.exportEvents.name,
        key: request.id,
        value: JSON.stringify(event),
        headers: { [KAFKA_HEADERS.aggregateVersion]: '1', [KAFKA_HEADERS.correlationId]: request.id },
      },
    ]);
  }
}
