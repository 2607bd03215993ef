import {
  type ClientSecrets,
  EVENT_TYPES,
  type EventType,
  KAFKA_HEADERS,
  type RegisteredClient,
  TOPICS,
  validateEvent,
} from '@lx/contracts';
import { decodeMessage } from '@lx/messaging';
import { WebhookSecretTransport } from '@lx/platform';
import { uniqueSuffix } from '@lx/testing';
import { ClientEventsReader, type ReceivedMessage } from './support/client-events';
import { startAuth, type AuthUnderTest } from './support/auth-under-test';

const CLIENT_EVENT_TYPES = new Set<EventType>(EVENT_TYPES.filter((type) => type.startsWith('CLIENT_')));

/** Every spelling in which a secret could leak: the text and its base64, base64url and hex forms, and the same of the random bytes inside it. */
function spellingsOf(secret: string): string[] {
  const text = Buffer.from(secret, 'utf8');
  const material = secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'base64url');
  return [
    secret,
    ...[text, material].flatMap((bytes) => [
      bytes.toString('base64'),
      bytes.toString('base64url'),
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
    ]),
    ...(secret.startsWith('whsec_') ? [secret.slice('whsec_'.length)] : []),
  ];
}

/** Key, value, and every header name and value of a message, as they were on the topic. */
const bytesOf = (message: ReceivedMessage): Buffer[] => [
  message.raw.key ?? Buffer.alloc(0),
  message.raw.value ?? Buffer.alloc(0),
  ...Object.entries(message.raw.headers).flatMap(([name, value]) => [Buffer.from(name), value]),
];

describe('client events on client.events.v1: versioned, correlated, and without a secret in clear', () => {
  let auth: AuthUnderTest;
  let events: ClientEventsReader;
  let adminToken: string;
  const requestId = (action: string) => `it-${action}-${uniqueSuffix()}`;

  const admin = async (method: string, path: string, id: string, body?: unknown) => {
    const response = await fetch(`${auth.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        'x-request-id': id,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.headers.get('x-request-id')).toBe(id);
    return response;
  };

  beforeAll(async () => {
    auth = await startAuth();
    adminToken = await auth.adminToken();
    // Positioned at the log end after auth published its bootstrap admin: what follows is this test's doing.
    events = new ClientEventsReader({ from: 'end' });
    await events.start();
  }, 120_000);

  afterAll(async () => {
    await events?.stop();
    await auth?.close();
  });

  it('registers, rotates, updates and disables an RSP: versions 1 to 4, the request ids, secrets only sealed', async () => {
    const ids = {
      register: requestId('register'),
      rotate: requestId('rotate'),
      update: requestId('update'),
      disable: requestId('disable'),
    };
    const registration = await admin('POST', '/admin/clients', ids.register, {
      name: 'Wire Fiber',
      kind: 'RSP',
      webhookUrl: 'https://hooks.wire.example/lx',
    });
    expect(registration.status).toBe(201);
    const registered = (await registration.json()) as RegisteredClient;
    const clientId = registered.clientId;
    const rotation = await admin('POST', `/admin/clients/${clientId}/rotate-secret`, ids.rotate);
    expect(rotation.status).toBe(200);
    const rotated = (await rotation.json()) as ClientSecrets;
    const update = await admin('PATCH', `/admin/clients/${clientId}`, ids.update, {
      webhookUrl: 'https://hooks.wire.example/v2',
    });
    expect(update.status).toBe(200);
    expect((await admin('POST', `/admin/clients/${clientId}/disable`, ids.disable)).status).toBe(200);

    const published = await events.waitForEvents(clientId, 4);
    const messages = events.messagesOf(clientId);
    expect(published.map((event) => event.type)).toEqual([
      'CLIENT_REGISTERED',
      'CLIENT_SECRET_ROTATED',
      'CLIENT_UPDATED',
      'CLIENT_DISABLED',
    ]);
    expect(messages.map((message) => message.headers[KAFKA_HEADERS.aggregateVersion])).toEqual(['1', '2', '3', '4']);
    expect(messages.map((message) => message.headers[KAFKA_HEADERS.correlationId])).toEqual([
      ids.register,
      ids.rotate,
      ids.update,
      ids.disable,
    ]);
    for (const event of published) expect(validateEvent(event).ok).toBe(true);

    // What the shared projection consumer makes of the bytes: events at versions 1 to 4, no dead letter.
    const decoded = messages.map((message, offset) =>
      decodeMessage(
        {
          topic: TOPICS.clientEvents.name,
          partition: 0,
          offset: String(offset),
          key: message.key,
          value: message.raw.value,
          headers: message.headers,
        },
        CLIENT_EVENT_TYPES,
      ),
    );
    expect(decoded.map((result) => (result.kind === 'event' ? result.event.version : result))).toEqual([1, 2, 3, 4]);

    const secrets = [
      registered.webhookSecret!,
      rotated.webhookSecret!,
      registered.clientSecret,
      rotated.clientSecret,
      auth.admin.clientSecret,
      auth.env.AUTH_ENCRYPTION_KEY!,
      auth.env.WEBHOOK_SECRET_TRANSPORT_KEY!,
    ];
    for (const message of messages) {
      for (const bytes of bytesOf(message)) {
        for (const spelling of secrets.flatMap(spellingsOf)) expect(bytes.includes(spelling)).toBe(false);
      }
    }

    const transport = new WebhookSecretTransport(Buffer.from(auth.env.WEBHOOK_SECRET_TRANSPORT_KEY!, 'base64'));
    const sealed = published.map((event) => event.data.webhookSecretSealed as string);
    expect(sealed.map((value, index) => transport.open(value, { clientId, version: index + 1 }))).toEqual([
      registered.webhookSecret,
      rotated.webhookSecret,
      rotated.webhookSecret,
      rotated.webhookSecret,
    ]);
    // Bound to its client and version: the value of version 1 is no use as version 2's or as another client's.
    expect(() => transport.open(sealed[0]!, { clientId, version: 2 })).toThrow();
    expect(() => transport.open(sealed[0]!, { clientId: auth.admin.clientId, version: 1 })).toThrow();
    const atRestKey = new WebhookSecretTransport(Buffer.from(auth.env.AUTH_ENCRYPTION_KEY!, 'base64'));
    expect(() => atRestKey.open(sealed[0]!, { clientId, version: 1 })).toThrow();
  });
});
