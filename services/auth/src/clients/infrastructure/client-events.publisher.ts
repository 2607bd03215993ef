import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type ClientData, type EventType, KAFKA_HEADERS, TOPICS } from '@lx/contracts';
import { contractEvent, Outbox } from '@lx/messaging';
import type { EntityManager } from 'typeorm';
import { Clock, SecretBox, WebhookSecretTransport } from '@lx/platform';
import { type Client, hasWebhook } from '../domain/client';
import { webhookSecretContext } from './webhook-secret';

export type ClientEventType = Extract<EventType, `CLIENT_${string}`>;

/** Where a change came from, for the event's headers. */
export interface ClientEventContext {
  /** The HTTP request id of the admin API call; absent for the CLI and the bootstrap at start. */
  correlationId?: string;
}

/**
 * Appends a CLIENT_* event to the outbox inside the transaction that changed the client, so the event exists
 * exactly when the change commits. Every event carries the whole client, because client.events.v1 is compacted and
 * the webhook dispatcher keeps its own copy from it; headers `lx-aggregate-version` (the client's version after the
 * change) and `lx-correlation-id`. The webhook signing secret leaves auth only sealed under the transport key, bound
 * to client id and version; the OAuth client secret never leaves auth.
 */
@Injectable()
export class ClientEventsPublisher {
  constructor(
    private readonly outbox: Outbox,
    private readonly box: SecretBox,
    private readonly transport: WebhookSecretTransport,
    private readonly clock: Clock,
  ) {}

  async append(
    manager: EntityManager,
    type: ClientEventType,
    client: Client,
    context: ClientEventContext = {},
  ): Promise<void> {
    const event = contractEvent(type, {
      id: randomUUID(),
      timestamp: this.clock.now().toISOString(),
      source: 'auth',
      data: this.dataOf(client),
    });
    const headers: Record<string, string> = { [KAFKA_HEADERS.aggregateVersion]: String(client.version) };
    if (context.correlationId !== undefined) headers[KAFKA_HEADERS.correlationId] = context.correlationId;
    await this.outbox.append(manager, [
      { topic: TOPICS.clientEvents.name, key: client.id, value: JSON.stringify(event), headers },
    ]);
  }

  private dataOf(client: Client): ClientData {
    const webhookSecretSealed =
      hasWebhook(client.kind) && client.webhookSecretEncrypted !== null
        ? this.transport.seal(
            this.box.open(client.webhookSecretEncrypted, webhookSecretContext(client.id)).toString('utf8'),
            { clientId: client.id, version: client.version },
          )
        : undefined;
    return {
      clientId: client.id,
      name: client.name,
      kind: client.kind,
      scopes: [...client.scopes],
      enabled: client.enabled,
      ...(client.webhookUrl === null ? {} : { webhookUrl: client.webhookUrl }),
      ...(webhookSecretSealed === undefined ? {} : { webhookSecretSealed }),
    };
  }
}
