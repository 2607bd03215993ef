import { randomBytes } from 'node:crypto';
import { KAFKA_HEADERS, TOPICS, validateEvent } from '@lx/contracts';
import type { Outbox, OutboxMessage } from '@lx/messaging';
import { type Clock, SecretBox, WebhookSecretTransport } from '@lx/platform';
import type { EntityManager } from 'typeorm';
import type { Client } from '../domain/client';
import { ClientEventsPublisher } from './client-events.publisher';
import { webhookSecretContext } from './webhook-secret';

describe('ClientEventsPublisher', () => {
  const atRest = new SecretBox(randomBytes(32));
  const transportKey = randomBytes(32);
  const transport = new WebhookSecretTransport(transportKey);
  const clock: Clock = { now: () => new Date('2025-03-01T08:00:00.000Z') };
  const manager = {} as EntityManager;
  const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
  const id = '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e';

  const anRsp = (overrides: Partial<Client> = {}): Client => ({
    id,
    name: 'Acme',
    kind: 'RSP',
    scopes: ['locations:read'],
    enabled: true,
    version: 3,
    webhookUrl: 'https://hooks.acme.example/lx',
    secretHash: 'scrypt$16384$8$1$salt$hash',
    webhookSecretEncrypted: atRest.seal(webhookSecret, webhookSecretContext(id)),
    tokensIssuedBefore: null,
    createdAt: new Date('2025-01-01T00:00:00Z'),
    updatedAt: new Date('2025-02-01T00:00:00Z'),
    ...overrides,
  });

  function publisherWithOutbox() {
    const appended: OutboxMessage[] = [];
    const outbox = {
      append: (_: EntityManager, messages: readonly OutboxMessage[]) => {
        appended.push(...messages);
        return Promise.resolve();
      },
    } as unknown as Outbox;
    return { publisher: new ClientEventsPublisher(outbox, atRest, transport, clock), appended };
  }

  it('given an RSP at version 3 changed by a request, when appended, then the headers carry version and request id', async () => {
    const { publisher, appended } = publisherWithOutbox();
    await publisher.append(manager, 'CLIENT_UPDATED', anRsp(), { correlationId: 'req-42' });
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({
      topic: TOPICS.clientEvents.name,
      key: id,
      headers: { [KAFKA_HEADERS.aggregateVersion]: '3', [KAFKA_HEADERS.correlationId]: 'req-42' },
    });
  });

  it('given a change without a request (CLI, bootstrap), when appended, then there is no correlation header', async () => {
    const { publisher, appended } = publisherWithOutbox();
    await publisher.append(manager, 'CLIENT_REGISTERED', anRsp({ version: 1 }));
    expect(appended[0]?.headers).toEqual({ [KAFKA_HEADERS.aggregateVersion]: '1' });
  });

  it('given an RSP, when appended, then the event holds its webhook secret only sealed for this client and version', async () => {
    const { publisher, appended } = publisherWithOutbox();
    await publisher.append(manager, 'CLIENT_SECRET_ROTATED', anRsp());
    const value = appended[0]!.value;
    expect(value).not.toContain(webhookSecret);
    expect(value).not.toContain(webhookSecret.slice('whsec_'.length));
    const event = validateEvent(JSON.parse(value));
    expect(event.ok).toBe(true);
    const data = event.ok ? (event.value.data as Record<string, unknown>) : {};
    expect(data).not.toHaveProperty('webhookSecret');
    expect(transport.open(data.webhookSecretSealed as string, { clientId: id, version: 3 })).toBe(webhookSecret);
    expect(() => transport.open(data.webhookSecretSealed as string, { clientId: id, version: 4 })).toThrow();
  });

  it('given an admin client, when appended, then there is no webhook secret in any form', async () => {
    const { publisher, appended } = publisherWithOutbox();
    const admin = anRsp({ kind: 'ADMIN', scopes: ['auth:admin'], webhookUrl: null, webhookSecretEncrypted: null });
    await publisher.append(manager, 'CLIENT_REGISTERED', admin);
    expect(JSON.parse(appended[0]!.value).data).toEqual({
      clientId: id,
      name: 'Acme',
      kind: 'ADMIN',
      scopes: ['auth:admin'],
      enabled: true,
    });
  });
});
