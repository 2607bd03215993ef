import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type ClientData, eventSchema, type EventType, TOPICS, validate } from '@lx/contracts';
import { Outbox } from '@lx/messaging';
import type { EntityManager } from 'typeorm';
import { Clock, SecretBox } from '@lx/platform';
import { type Client, hasWebhook } from '../domain/client';
import { webhookSecretContext } from './webhook-secret';

type ClientEventType = Extract<EventType, `CLIENT_${string}`>;

/**
 * Appends a CLIENT_* event to the outbox inside the transaction that changed the client, so the event exists
 * exactly when the change commits. Every event carries the whole client, webhook signing secret included, because
 * client.events.v1 is compacted and the webhook dispatcher keeps its own copy from it. The OAuth client secret
 * never leaves auth.
 */
@Injectable()
export class ClientEventsPublisher {
  constructor(
    private readonly outbox: Outbox,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  async append(manager: EntityManager, type: ClientEventType, client: Client): Promise<void> {
    const event = {
      id: randomUUID(),
      type,
      timestamp: this.clock.now().toISOString(),
      source: 'auth',
      data: this.dataOf(client),
    };
    const checked = validate(eventSchema(type), event);
    if (!checked.ok) {
      // A programming error, not bad input: the client was validated before it got here.
      throw new Error(`${type} event does not match its contract: ${checked.issues.map((i) => i.message).join('; ')}`);
    }
    await this.outbox.append(manager, [
      { topic: TOPICS.clientEvents.name, key: client.id, value: JSON.stringify(checked.value) },
    ]);
  }

  private dataOf(client: Client): ClientData {
    const webhookSecret =
      hasWebhook(client.kind) && client.webhookSecretEncrypted !== null
        ? this.box.open(client.webhookSecretEncrypted, webhookSecretContext(client.id)).toString('utf8')
        : undefined;
    return {
      clientId: client.id,
      name: client.name,
      kind: client.kind,
      scopes: [...client.scopes],
      enabled: client.enabled,
      ...(client.webhookUrl === null ? {} : { webhookUrl: client.webhookUrl }),
      ...(webhookSecret === undefined ? {} : { webhookSecret }),
    };
  }
}
