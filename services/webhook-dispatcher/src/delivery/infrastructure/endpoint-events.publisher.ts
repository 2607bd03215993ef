import { Injectable } from '@nestjs/common';
import { KAFKA_HEADERS, TOPICS, type WebhookEndpointDisabledData } from '@lx/contracts';
import { contractEvent, Outbox, type OutboxExecutor } from '@lx/messaging';
import { Clock, IdGenerator } from '@lx/platform';

/** An endpoint disabled by a 410 reply, and the delivery whose attempt got it. */
export interface DisabledEndpoint extends WebhookEndpointDisabledData {
  deliveryId: string;
}

/**
 * Appends WEBHOOK_ENDPOINT_DISABLED to the outbox inside the transaction that disabled the endpoint, so the event
 * exists exactly when the endpoint is disabled. Keyed by client id; the delivery that got the 410 is its correlation
 * id. It is a notice for operations tooling, not the state of an aggregate, so it has no aggregate version.
 */
@Injectable()
export class EndpointEventsPublisher {
  constructor(
    private readonly outbox: Outbox,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async append(executor: OutboxExecutor, endpoints: readonly DisabledEndpoint[]): Promise<void> {
    const messages = endpoints.map(({ deliveryId, ...data }) => ({
      topic: TOPICS.webhookEvents.name,
      key: data.clientId,
      value: JSON.stringify(
        contractEvent('WEBHOOK_ENDPOINT_DISABLED', {
          id: this.ids.next(),
          timestamp: this.clock.now().toISOString(),
          source: 'webhook-dispatcher',
          data,
        }),
      ),
      headers: { [KAFKA_HEADERS.correlationId]: deliveryId },
    }));
    await this.outbox.append(executor, messages);
  }
}
