import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { KAFKA_HEADERS, TOPICS, validateEvent } from '@lx/contracts';
import { aNewLocation, publish, startEventLog, waitFor } from '@lx/testing';
import {
  type Answer,
  aSelfSignedCertificate,
  aWebhookSecret,
  ownEvents,
  receiptsOf,
  type DeliveryRow,
  type Dispatcher,
  type Receiver,
  startDispatcher,
  startReceiver,
} from '../support/dispatcher-harness';

/** The headers a receiver got, as the standardwebhooks library takes them. */
const signatureHeaders = (headers: Record<string, unknown>) => ({
  'webhook-id': String(headers['webhook-id']),
  'webhook-timestamp': String(headers['webhook-timestamp']),
  'webhook-signature': String(headers['webhook-signature']),
});

/**
 * The dispatcher against real Kafka and Postgres, delivering to real HTTP receivers on loopback. Signatures are
 * checked with the npm `standardwebhooks` package, as an RSP would, not with this project's code.
 */
describe('webhook deliveries', () => {
  let dispatcher: Dispatcher;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    dispatcher = await startDispatcher({
      WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
      WEBHOOK_RESPONSE_TIMEOUT: '2s',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
    });
  }, 120_000);

  afterAll(async () => {
    await dispatcher?.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  const events = ownEvents(() => dispatcher, receivers);
  const aSubscriber = (answer?: (attempt: number) => Answer, secret?: string) =>
    events.subscriber(answer, secret === undefined ? {} : { secret });
  const aLocationEvent = () => events.locationEvent();

  /** Registers a client whose webhook URL is `webhookUrl` (no receiver of this file's behind it); its client id. */
  async function aSubscriberAt(webhookUrl: string): Promise<string> {
    const clientId = randomUUID();
    await dispatcher.publishClient('CLIENT_REGISTERED', { clientId, webhookUrl, secret: aWebhookSecret() }, 1);
    await dispatcher.waitForSubscription(clientId, 1);
    return clientId;
  }

  /** The delivery has `count` attempts, none of which got a reply, each failing with `error`. */
  async function expectAttemptsWithoutReply(deliveryId: string, count: number, error: RegExp): Promise<void> {
    const attempts = await dispatcher.attempts(deliveryId);
    expect(attempts).toHaveLength(count);
    for (const attempt of attempts) {
      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toMatch(error);
    }
  }

  /** Waits until the delivery of `eventId` to `clientId` is no longer PENDING (or has `attempts` attempts). */
  async function settled(eventId: string, clientId: string, attempts?: number) {
    let found: Awaited<ReturnType<Dispatcher['deliveries']>>[number] | undefined;
    await waitFor(`delivery of ${eventId} to ${clientId}`, async () => {
      found = (await dispatcher.deliveries(eventId)).find((delivery) => delivery.client_id === clientId);
      if (found === undefined) return false;
      return attempts === undefined ? found.status !== 'PENDING' : found.attempts >= attempts;
    });
    return found!;
  }

  it('sends a location event to every subscriber, signed so the standardwebhooks library verifies it', async () => {
    const first = await aSubscriber();
    const second = await aSubscriber();
    const { eventId, location } = await aLocationEvent();

    for (const { clientId, receiver, secret } of [first, second]) {
      expect((await settled(eventId, clientId)).status).toBe('DELIVERED');
      expect(receiptsOf(receiver, eventId)).toHaveLength(1);
      const [request] = receiptsOf(receiver, eventId);
      expect(request!.path).toBe('/hooks/locations/events');
      expect(request!.headers['content-type']).toBe('application/json');
      expect(request!.headers['x-event-id']).toBe(eventId);
      expect(request!.headers['x-event-type']).toBe('LOCATION_CREATED');
      expect(request!.headers['x-event-timestamp']).toMatch(/Z$/);
      const verified = new Webhook(secret).verify(request!.body, signatureHeaders(request!.headers));
      expect(verified).toEqual({
        event: expect.objectContaining({ id: eventId, type: 'LOCATION_CREATED', data: location }),
      });
      // Another client's secret does not verify it.
      expect(() => new Webhook(aWebhookSecret()).verify(request!.body, signatureHeaders(request!.headers))).toThrow();
    }
  });

  it('sends an export notification only to the client that asked for the export, its body exactly the notification', async () => {
    const requester = await aSubscriber();
    const other = await aSubscriber();
    const notification = {
      requestId: randomUUID(),
      status: 'FAILED',
      error: { code: 'EXPORT_GENERATION_FAILED', message: 'The export could not be generated' },
    };
    const eventId = randomUUID();
    events.own(notification.requestId);
    await dispatcher.bus.publish(TOPICS.exportEvents.name, [
      {
        key: notification.requestId,
        value: JSON.stringify({
          id: eventId,
          type: 'EXPORT_FAILED',
          timestamp: new Date().toISOString(),
          source: 'it-export-worker',
          data: { clientId: requester.clientId, notification },
        }),
        headers: { [KAFKA_HEADERS.aggregateVersion]: '1', [KAFKA_HEADERS.correlationId]: 'it-correlation' },
      },
    ]);

    expect((await settled(eventId, requester.clientId)).status).toBe('DELIVERED');
    const [request] = receiptsOf(requester.receiver, notification.requestId);
    expect(request!.path).toBe('/hooks/locations/exports/events');
    expect(JSON.parse(request!.body)).toEqual(notification);
    expect(new Webhook(requester.secret).verify(request!.body, signatureHeaders(request!.headers))).toEqual(
      notification,
    );
    expect(await dispatcher.deliveries(eventId)).toHaveLength(1);
    expect(receiptsOf(other.receiver, notification.requestId)).toHaveLength(0);
  });

  it('creates one delivery per event and client however often Kafka delivers the event', async () => {
    const subscriber = await aSubscriber();
    const location = aNewLocation();
    events.own(location.id);
    const event = {
      id: randomUUID(),
      type: 'LOCATION_CREATED',
      timestamp: new Date().toISOString(),
      source: 'it',
      data: location,
    };
    const message = {
      key: location.id,
      value: JSON.stringify(event),
      headers: { [KAFKA_HEADERS.aggregateVersion]: '1' },
    };
    // A marker after the three copies, with the same key (so the same partition): once its delivery exists, every
    // copy has been consumed and recorded.
    const marker = { ...message, value: JSON.stringify({ ...event, id: randomUUID() }) };
    await dispatcher.bus.publish(TOPICS.locationEvents.name, [message, message, message, marker]);

    expect((await settled(event.id, subscriber.clientId)).status).toBe('DELIVERED');
    await settled(JSON.parse(marker.value).id, subscriber.clientId);
    const mine = (await dispatcher.deliveries(event.id)).filter(
      (delivery) => delivery.client_id === subscriber.clientId,
    );
    expect(mine).toHaveLength(1);
    expect(receiptsOf(subscriber.receiver, event.id)).toHaveLength(1);
  });

  it('retries a 500 with the same webhook-id and records every attempt', async () => {
    const subscriber = await aSubscriber((index) =>
      index === 0 ? { status: 500, body: 'database down' } : { status: 200 },
    );
    const { eventId } = await aLocationEvent();

    const delivery = await settled(eventId, subscriber.clientId);
    expect(delivery.status).toBe('DELIVERED');
    expect(delivery.attempts).toBe(2);
    const attempts = await dispatcher.attempts(delivery.id);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status_code])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(attempts[0]!.response_excerpt).toBe('database down');
    const [first, second] = receiptsOf(subscriber.receiver, eventId);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(250);
  });

  it('never retries a 400: the delivery FAILED after one attempt', async () => {
    const subscriber = await aSubscriber(() => ({ status: 400 }));
    const { eventId } = await aLocationEvent();

    const delivery = await settled(eventId, subscriber.clientId);
    expect(delivery).toMatchObject({ status: 'FAILED', attempts: 1, last_status_code: 400 });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiptsOf(subscriber.receiver, eventId)).toHaveLength(1);
  });

  it('retries a 401 and counts it as a credentials problem of that client; DEAD after the last attempt', async () => {
    const subscriber = await aSubscriber(() => ({ status: 401 }));
    const { eventId } = await aLocationEvent();

    const delivery = await settled(eventId, subscriber.clientId);
    expect(delivery).toMatchObject({ status: 'DEAD', attempts: 3, last_status_code: 401 });
    expect(delivery.last_error).toMatch(/^WEBHOOK_DELIVERY_FAILED: unauthorized/);
    expect(receiptsOf(subscriber.receiver, eventId)).toHaveLength(3);
    expect(await dispatcher.metrics()).toContain(`webhook_unauthorized_total{client_id="${subscriber.clientId}"} 3`);
  });

  it('honours Retry-After in seconds and as an HTTP date as the lower bound of the next attempt', async () => {
    const inSeconds = await aSubscriber((index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 202 },
    );
    const asDate = await aSubscriber((index) =>
      index === 0
        ? { status: 503, headers: { 'retry-after': new Date(Date.now() + 3_000).toUTCString() } }
        : { status: 200 },
    );
    const { eventId } = await aLocationEvent();

    for (const [{ clientId, receiver }, atLeastMs] of [
      [inSeconds, 2_000],
      [asDate, 1_000],
    ] as const) {
      expect((await settled(eventId, clientId)).status).toBe('DELIVERED');
      const [first, second] = receiptsOf(receiver, eventId);
      // The schedule says 300 ms; Retry-After wins.
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(atLeastMs);
    }
  });

  it('does not follow a redirect: a 3xx is retried at the same URL', async () => {
    const elsewhere = await startReceiver();
    receivers.push(elsewhere);
    const subscriber = await aSubscriber((index) =>
      index === 0 ? { status: 307, headers: { location: elsewhere.url } } : { status: 200 },
    );
    const { eventId } = await aLocationEvent();

    const delivery = await settled(eventId, subscriber.clientId);
    expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 2 });
    expect((await dispatcher.attempts(delivery.id)).map((attempt) => attempt.status_code)).toEqual([307, 200]);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('retries a refused connection and a reply that never comes, recording why', async () => {
    const closed = await startReceiver();
    const refusingUrl = closed.url;
    await closed.close();
    const refusing = await aSubscriberAt(refusingUrl);
    const hanging = await aSubscriber(() => 'hang');
    const { eventId } = await aLocationEvent();

    const refused = await settled(eventId, refusing);
    expect(refused.status).toBe('DEAD');
    await expectAttemptsWithoutReply(refused.id, 3, /ECONNREFUSED/);
    const timedOut = await settled(eventId, hanging.clientId, 2);
    const [first] = await dispatcher.attempts(timedOut.id);
    expect(first!.error).toBe('no complete reply within 2000 ms');
    expect(first!.latency_ms).toBeGreaterThanOrEqual(1_900);
  });

  it('retries an endpoint whose TLS certificate no trusted authority signed, recording the TLS error; DEAD after the last attempt', async () => {
    const untrusted = await startReceiver(undefined, { tls: aSelfSignedCertificate() });
    receivers.push(untrusted);
    const clientId = await aSubscriberAt(untrusted.url);
    const { eventId } = await aLocationEvent();

    const delivery = await settled(eventId, clientId);
    expect(delivery.status).toBe('DEAD');
    await expectAttemptsWithoutReply(delivery.id, 3, /DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate$/);
    expect(delivery.last_error).toMatch(/^WEBHOOK_DELIVERY_FAILED: DEPTH_ZERO_SELF_SIGNED_CERT/);
    // The handshake failed, so no request (no body, no signature) ever reached the endpoint.
    expect(untrusted.received).toHaveLength(0);
    expect(await dispatcher.metrics()).toMatch(/webhook_attempts_total\{result="tls"\} [1-9]/);
  });

  it('disables an endpoint that answers 410, announces it once, and fails its later deliveries without sending them', async () => {
    const endpointEvents = await startEventLog(dispatcher.kafka, [TOPICS.webhookEvents.name]);
    try {
      const subscriber = await aSubscriber(() => ({ status: 410 }));
      const witness = await aSubscriber();
      // Two events at once, on two partitions the intake takes concurrently: both deliveries may be answered 410
      // before the endpoint is disabled, or the endpoint may be disabled before the other event is recorded, which
      // then has no delivery to it. The deliveries of one event are created together, so once the witness has a
      // delivery of each, both events are recorded.
      const both = [await aLocationEvent(), await aLocationEvent()];
      for (const { eventId } of both) await settled(eventId, witness.clientId);
      const gone: DeliveryRow[] = [];
      for (const { eventId } of both) {
        const recorded = (await dispatcher.deliveries(eventId)).some((row) => row.client_id === subscriber.clientId);
        if (recorded) gone.push(await settled(eventId, subscriber.clientId));
      }
      expect(new Set(gone.map((delivery) => delivery.status))).toEqual(new Set(['FAILED']));
      expect(gone.map((delivery) => delivery.last_status_code)).toContain(410);
      const { rows } = await dispatcher.db.query('SELECT disabled_at FROM subscriptions WHERE client_id = $1', [
        subscriber.clientId,
      ]);
      expect(rows[0].disabled_at).not.toBeNull();

      const [announced] = await endpointEvents.waitFor(1, [subscriber.clientId]);
      expect(announced!.event).toMatchObject({
        type: 'WEBHOOK_ENDPOINT_DISABLED',
        source: 'webhook-dispatcher',
        data: {
          clientId: subscriber.clientId,
          url: `${subscriber.receiver.url}/locations/events`,
          reason: expect.stringMatching(/^HTTP 410 Gone at /),
          disabledAt: new Date(rows[0].disabled_at).toISOString(),
        },
      });
      expect(validateEvent(announced!.event).ok).toBe(true);
      expect(gone.map((delivery) => delivery.id)).toContain(announced!.headers[KAFKA_HEADERS.correlationId]);
      // A marker: another endpoint's 410, announced after anything this one could still have announced (one
      // partition, outbox order), so a second announcement of the first endpoint would have arrived before it.
      const marker = await aSubscriber(() => ({ status: 410 }));
      await aLocationEvent();
      await endpointEvents.waitFor(1, [marker.clientId]);
      expect(endpointEvents.of(subscriber.clientId)).toHaveLength(1);

      // Once the witness has its delivery of a later event, the disabled endpoint has none and never will.
      const second = await aLocationEvent();
      await settled(second.eventId, witness.clientId);
      expect(await dispatcher.deliveries(second.eventId)).not.toContainEqual(
        expect.objectContaining({ client_id: subscriber.clientId }),
      );
      expect(receiptsOf(subscriber.receiver, second.eventId)).toHaveLength(0);
    } finally {
      await endpointEvents.close();
    }
  });

  it('sends nothing to a disabled client, and a URL change takes effect for the next attempt', async () => {
    // The first attempt fails with a Retry-After that leaves time to change the URL.
    const subscriber = await aSubscriber(() => ({ status: 503, headers: { 'retry-after': '3' } }));
    const { eventId } = await aLocationEvent();
    await settled(eventId, subscriber.clientId, 1);

    const moved = await startReceiver();
    receivers.push(moved);
    await dispatcher.publishClient(
      'CLIENT_UPDATED',
      { clientId: subscriber.clientId, webhookUrl: moved.url, secret: subscriber.secret },
      2,
    );
    await dispatcher.waitForSubscription(subscriber.clientId, 2);
    expect((await settled(eventId, subscriber.clientId)).status).toBe('DELIVERED');
    expect(receiptsOf(moved, eventId)).toHaveLength(1);

    await dispatcher.publishClient(
      'CLIENT_DISABLED',
      { clientId: subscriber.clientId, webhookUrl: moved.url, secret: subscriber.secret, enabled: false },
      3,
    );
    await dispatcher.waitForSubscription(subscriber.clientId, 3);
    const witness = await aSubscriber();
    const later = await aLocationEvent();
    await settled(later.eventId, witness.clientId);
    expect(await dispatcher.deliveries(later.eventId)).not.toContainEqual(
      expect.objectContaining({ client_id: subscriber.clientId }),
    );
    expect(receiptsOf(moved, later.eventId)).toHaveLength(0);
  });

  it('signs with both the new and the previous secret during the rotation grace period', async () => {
    const subscriber = await aSubscriber();
    const rotated = aWebhookSecret();
    await dispatcher.publishClient(
      'CLIENT_SECRET_ROTATED',
      { clientId: subscriber.clientId, webhookUrl: subscriber.receiver.url, secret: rotated },
      2,
    );
    await dispatcher.waitForSubscription(subscriber.clientId, 2);
    const { eventId } = await aLocationEvent();

    expect((await settled(eventId, subscriber.clientId)).status).toBe('DELIVERED');
    const [request] = receiptsOf(subscriber.receiver, eventId);
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [rotated, subscriber.secret]) {
      expect(() => new Webhook(secret).verify(request!.body, signatureHeaders(request!.headers))).not.toThrow();
    }
  });
});

/**
 * An endpoint that never answers holds its slots until the response timeout. Here that timeout is a minute, far longer
 * than the test, so the hanging endpoint's attempts are all still open when the healthy endpoint has everything: it
 * never waited for them, whatever the machine's speed (a wall-clock bound below the 2 s timeout failed on a loaded
 * machine at 2,053 ms).
 */
describe('webhook deliveries: an endpoint that hangs', () => {
  let dispatcher: Dispatcher;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    dispatcher = await startDispatcher({ WEBHOOK_RESPONSE_TIMEOUT: '60s', WEBHOOK_ENDPOINT_CONCURRENCY: '2' });
  }, 120_000);

  afterAll(async () => {
    // The receivers first: closing one ends the attempts it holds open, which the dispatcher waits for on close.
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await dispatcher?.close();
  });

  const events = ownEvents(() => dispatcher, receivers);

  it('keeps delivering to a healthy endpoint while another holds its slots', async () => {
    const hanging = await events.subscriber(() => 'hang');
    const healthy = await events.subscriber();
    const held = () => hanging.receiver.received.filter(events.isOwn).map((request) => request.headers['x-event-id']);
    // The first two events take the hanging endpoint's two slots; the other six come after that.
    const published = [await events.locationEvent(), await events.locationEvent()];
    await waitFor('the hanging endpoint to hold both its slots', () => Promise.resolve(held().length === 2));
    for (let i = 0; i < 6; i++) published.push(await events.locationEvent());

    for (const { eventId } of published) {
      await waitFor(`delivery of ${eventId} to the healthy endpoint`, async () =>
        (await dispatcher.deliveries(eventId)).some(
          (delivery) => delivery.client_id === healthy.clientId && delivery.status === 'DELIVERED',
        ),
      );
      expect(receiptsOf(healthy.receiver, eventId)).toHaveLength(1);
    }
    // Meanwhile the hanging endpoint still holds the first two events and nothing else: no attempt of it has ended
    // (an ended one would have freed its slot for the next event and left a delivery row with an attempt). The two
    // come in either order: their keys may be on different partitions.
    expect(held().map(String).sort()).toEqual(
      published
        .slice(0, 2)
        .map(({ eventId }) => eventId)
        .sort(),
    );
    for (const { eventId } of published) {
      const rows = await dispatcher.deliveries(eventId);
      expect(rows.filter((delivery) => delivery.client_id === hanging.clientId && delivery.attempts > 0)).toEqual([]);
    }
  });
});

describe('webhook deliveries: the SSRF guard', () => {
  it('refuses a webhook URL on a loopback address unless configuration allows loopback', async () => {
    const dispatcher = await startDispatcher({ WEBHOOK_ALLOWED_ADDRESS_KINDS: '' });
    const receiver = await startReceiver();
    try {
      const clientId = randomUUID();
      await dispatcher.publishClient(
        'CLIENT_REGISTERED',
        { clientId, webhookUrl: receiver.url.replace('127.0.0.1', 'localhost'), secret: aWebhookSecret() },
        1,
      );
      await dispatcher.waitForSubscription(clientId, 1);
      const { id: eventId } = await publish(dispatcher.bus, 'LOCATION_CREATED', aNewLocation(), 1);

      await waitFor('the refusal', async () => (await dispatcher.deliveries(eventId))[0]?.status === 'FAILED');
      const [delivery] = await dispatcher.deliveries(eventId);
      expect(delivery!.last_error).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await dispatcher.close();
      await receiver.close();
    }
  });
});
