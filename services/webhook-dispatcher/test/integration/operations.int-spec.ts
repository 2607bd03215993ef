import { randomUUID } from 'node:crypto';
import { waitFor } from '@lx/testing';
import {
  type Answer,
  type Dispatcher,
  ownEvents,
  receiptsOf,
  type Receiver,
  startDispatcher,
} from '../support/dispatcher-harness';

const ADMIN = { scopes: ['webhooks:admin'] };
const rsp = (clientId: string) => ({ clientId, scopes: ['locations:read'] });

/** The SRE and RSP APIs over the delivery records, against real Kafka, Postgres and HTTP receivers. */
describe('webhook operations', () => {
  let dispatcher: Dispatcher;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    dispatcher = await startDispatcher({ WEBHOOK_RETRY_SCHEDULE: '200ms,200ms', READ_STATEMENT_TIMEOUT_MS: '1000' });
  }, 120_000);

  afterAll(async () => {
    await dispatcher?.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  const events = ownEvents(() => dispatcher, receivers);
  const aSubscriber = (answer?: (attempt: number) => Answer, foreign?: () => Answer) =>
    events.subscriber(answer, foreign === undefined ? {} : { foreign });
  const aLocationEvent = async () => (await events.locationEvent()).eventId;

  async function deliveryOf(eventId: string, clientId: string, status: string) {
    let id = '';
    await waitFor(`a ${status} delivery`, async () => {
      const found = (await dispatcher.deliveries(eventId)).find((delivery) => delivery.client_id === clientId);
      id = found?.id ?? '';
      return found?.status === status;
    });
    return id;
  }

  it('lets an RSP see only its own deliveries, each with its attempts, and have one sent again', async () => {
    const mine = await aSubscriber();
    const theirs = await aSubscriber();
    const eventId = await aLocationEvent();
    const id = await deliveryOf(eventId, mine.clientId, 'DELIVERED');
    const other = await deliveryOf(eventId, theirs.clientId, 'DELIVERED');

    const list = await dispatcher.call('GET', '/webhooks/deliveries', rsp(mine.clientId));
    expect(list.status).toBe(200);
    // Other test files' location events reach this dispatcher too: the list holds only this client's deliveries.
    expect(list.body.deliveries).toContainEqual(
      expect.objectContaining({
        id,
        clientId: mine.clientId,
        eventId,
        eventType: 'LOCATION_CREATED',
        status: 'DELIVERED',
      }),
    );
    expect(list.body.deliveries.map((delivery: { clientId: string }) => delivery.clientId)).toEqual(
      list.body.deliveries.map(() => mine.clientId),
    );
    expect(list.body.deliveries.map((delivery: { id: string }) => delivery.id)).not.toContain(other);
    expect(list.body.pagination).toEqual({ limit: 100, offset: 0, total: expect.any(Number) });

    // Delivered at its first attempt: no attempt is kept (only messages that failed once have a record).
    const detail = await dispatcher.call('GET', `/webhooks/deliveries/${id}`, rsp(mine.clientId));
    expect(detail.body).toMatchObject({ id, status: 'DELIVERED', attempts: 1, attemptLog: [] });
    const foreign = await dispatcher.call('GET', `/webhooks/deliveries/${other}`, rsp(mine.clientId));
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', details: { resourceType: 'delivery' } });
    expect((await dispatcher.call('POST', `/webhooks/deliveries/${other}/redeliver`, rsp(mine.clientId))).status).toBe(
      404,
    );

    const again = await dispatcher.call('POST', `/webhooks/deliveries/${id}/redeliver`, rsp(mine.clientId));
    expect(again.status).toBe(202);
    expect(again.body.status).toBe('PENDING');
    await waitFor('the second receipt', async () => receiptsOf(mine.receiver, eventId).length === 2);
    const [first, second] = receiptsOf(mine.receiver, eventId);
    expect(first!.headers['webhook-id']).toBe(id);
    expect(second!.headers['webhook-id']).toBe(id);
    expect(second!.body).toBe(first!.body);
    // The redelivery is on record, as attempt 2 of the delivery.
    await waitFor('the redelivery recorded', async () => {
      const again = await dispatcher.call('GET', `/webhooks/deliveries/${id}`, rsp(mine.clientId));
      return again.body.status === 'DELIVERED' && again.body.attemptLog.length === 1;
    });
    const redelivered = await dispatcher.call('GET', `/webhooks/deliveries/${id}`, rsp(mine.clientId));
    expect(redelivered.body).toMatchObject({
      attempts: 2,
      attemptLog: [
        expect.objectContaining({ attempt: 2, statusCode: 200, url: `${mine.receiver.url}/locations/events` }),
      ],
    });
  });

  it('refuses to redrive a delivery that is still PENDING (409)', async () => {
    const subscriber = await aSubscriber(() => ({ status: 503, headers: { 'retry-after': '60' } }));
    const eventId = await aLocationEvent();
    let id = '';
    await waitFor('the first attempt', async () => {
      const [found] = (await dispatcher.deliveries(eventId)).filter((d) => d.client_id === subscriber.clientId);
      id = found?.id ?? '';
      return found?.last_status_code === 503;
    });
    const reply = await dispatcher.call('POST', `/admin/webhooks/deliveries/${id}/redrive`, ADMIN);
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('CONFLICT');
  });

  it('lets an SRE see a DEAD delivery with every attempt, redrive it with a fresh schedule, and see the endpoint recover', async () => {
    let healthy = false;
    // Foreign events fail too while the endpoint is down, so no success of theirs ends its run of failures.
    const subscriber = await aSubscriber(
      () => (healthy ? { status: 200 } : { status: 500, body: 'boom' }),
      () => ({ status: healthy ? 200 : 500 }),
    );
    const eventId = await aLocationEvent();
    const id = await deliveryOf(eventId, subscriber.clientId, 'DEAD');

    const dead = await dispatcher.call('GET', `/admin/webhooks/deliveries/${id}`, ADMIN);
    expect(dead.body).toMatchObject({ status: 'DEAD', attempts: 3, lastStatusCode: 500 });
    expect(dead.body.lastError).toMatch(/^WEBHOOK_DELIVERY_FAILED/);
    expect(dead.body.attemptLog.map((attempt: { statusCode: number }) => attempt.statusCode)).toEqual([500, 500, 500]);
    expect(dead.body.attemptLog[0].responseExcerpt).toBe('boom');
    const failing = await dispatcher.call('GET', `/admin/webhooks/endpoints/${subscriber.clientId}`, ADMIN);
    expect(failing.body).toMatchObject({ state: 'FAILING' });
    expect(failing.body.consecutiveFailures).toBeGreaterThanOrEqual(3);
    const listed = await dispatcher.call(
      'GET',
      `/admin/webhooks/deliveries?clientId=${subscriber.clientId}&status=DEAD`,
      ADMIN,
    );
    expect(listed.body.deliveries.map((delivery: { id: string }) => delivery.id)).toContain(id);
    expect(listed.body.deliveries.map((delivery: { status: string }) => delivery.status)).toEqual(
      listed.body.deliveries.map(() => 'DEAD'),
    );

    healthy = true;
    expect((await dispatcher.call('POST', `/admin/webhooks/deliveries/${id}/redrive`, ADMIN)).status).toBe(202);
    await deliveryOf(eventId, subscriber.clientId, 'DELIVERED');
    const delivered = await dispatcher.call('GET', `/admin/webhooks/deliveries/${id}`, ADMIN);
    expect(delivered.body).toMatchObject({ status: 'DELIVERED', attempts: 4, lastStatusCode: 200 });
    const recovered = await dispatcher.call('GET', `/admin/webhooks/endpoints/${subscriber.clientId}`, ADMIN);
    expect(recovered.body).toMatchObject({ state: 'HEALTHY', consecutiveFailures: 0 });
  });

  it('redrives every DEAD delivery of a client since a time, and no other', async () => {
    let healthy = false;
    const subscriber = await aSubscriber(() => (healthy ? { status: 200 } : { status: 500 }));
    const early = await aLocationEvent();
    await deliveryOf(early, subscriber.clientId, 'DEAD');
    const since = new Date().toISOString();
    const late = [await aLocationEvent(), await aLocationEvent()];
    for (const eventId of late) await deliveryOf(eventId, subscriber.clientId, 'DEAD');

    healthy = true;
    const reply = await dispatcher.call('POST', `/admin/webhooks/endpoints/${subscriber.clientId}/redrive`, ADMIN, {
      since,
    });
    expect(reply).toEqual({ status: 202, body: { redriven: 2 } });
    for (const eventId of late) await deliveryOf(eventId, subscriber.clientId, 'DELIVERED');
    expect((await dispatcher.deliveries(early)).find((d) => d.client_id === subscriber.clientId)!.status).toBe('DEAD');

    const bad = await dispatcher.call('POST', `/admin/webhooks/endpoints/${subscriber.clientId}/redrive`, ADMIN, {
      since: 'yesterday',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([expect.objectContaining({ field: 'since' })]);
    const unknown = await dispatcher.call('POST', `/admin/webhooks/endpoints/${randomUUID()}/redrive`, ADMIN, {
      since,
    });
    expect(unknown.status).toBe(404);
  });

  it('shows an endpoint disabled by 410 as DISABLED until an SRE enables it again', async () => {
    let gone = true;
    const subscriber = await aSubscriber(() => (gone ? { status: 410 } : { status: 200 }));
    await deliveryOf(await aLocationEvent(), subscriber.clientId, 'FAILED');
    const disabled = await dispatcher.call('GET', `/admin/webhooks/endpoints/${subscriber.clientId}`, ADMIN);
    expect(disabled.body).toMatchObject({ state: 'DISABLED', disabledReason: expect.stringMatching(/^HTTP 410 Gone/) });
    const all = await dispatcher.call('GET', '/admin/webhooks/endpoints', ADMIN);
    expect(all.body.endpoints).toContainEqual(
      expect.objectContaining({ clientId: subscriber.clientId, state: 'DISABLED' }),
    );

    gone = false;
    const enabled = await dispatcher.call('POST', `/admin/webhooks/endpoints/${subscriber.clientId}/enable`, ADMIN);
    expect(enabled.body).toMatchObject({ state: 'HEALTHY', consecutiveFailures: 0 });
    await deliveryOf(await aLocationEvent(), subscriber.clientId, 'DELIVERED');
  });

  it('lets an RSP choose the event types it receives', async () => {
    const subscriber = await aSubscriber();
    const me = rsp(subscriber.clientId);
    const chosen = await dispatcher.call('PUT', '/webhooks/subscription', me, { eventTypes: ['EXPORT_COMPLETED'] });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({
      clientId: subscriber.clientId,
      eventTypes: ['EXPORT_COMPLETED'],
      state: 'HEALTHY',
    });

    const skipped = await aLocationEvent();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await dispatcher.deliveries(skipped)).map((d) => d.client_id)).not.toContain(subscriber.clientId);

    expect((await dispatcher.call('PUT', '/webhooks/subscription', me, { eventTypes: null })).status).toBe(200);
    expect((await dispatcher.call('GET', '/webhooks/subscription', me)).body.eventTypes).toBeUndefined();
    await deliveryOf(await aLocationEvent(), subscriber.clientId, 'DELIVERED');

    for (const body of [
      { eventTypes: [] },
      { eventTypes: ['CLIENT_REGISTERED'] },
      { eventTypes: null, extra: 1 },
      {},
    ]) {
      const reply = await dispatcher.call('PUT', '/webhooks/subscription', me, body);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
      expect(reply.body.error.details.issues.length).toBeGreaterThan(0);
    }
    expect((await dispatcher.call('GET', '/webhooks/subscription', rsp(randomUUID()))).status).toBe(404);
  });

  it.each([
    ['GET', '/admin/webhooks/deliveries', { scopes: ['locations:read'] }, 403],
    ['GET', '/admin/webhooks/deliveries', { scopes: null }, 401],
    ['GET', '/webhooks/deliveries', { scopes: ['webhooks:admin'] }, 403],
    ['GET', '/webhooks/deliveries', { scopes: null }, 401],
    ['GET', '/webhooks/deliveries?status=LOST', { scopes: ['locations:read'] }, 400],
    ['GET', '/webhooks/deliveries?clientId=x', { scopes: ['locations:read'] }, 400],
    ['GET', '/admin/webhooks/deliveries?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', ADMIN, 400],
    ['GET', '/admin/webhooks/deliveries?limit=0', ADMIN, 400],
    ['GET', '/admin/webhooks/deliveries/not-a-uuid', ADMIN, 400],
    ['GET', `/admin/webhooks/deliveries/${randomUUID()}`, ADMIN, 404],
    ['GET', `/admin/webhooks/endpoints/${randomUUID()}`, ADMIN, 404],
    ['GET', '/admin/webhooks/endpoints/not-a-uuid', ADMIN, 400],
    ['POST', '/admin/webhooks/endpoints/not-a-uuid/enable', ADMIN, 400],
    ['POST', '/admin/webhooks/endpoints/not-a-uuid/redrive', ADMIN, 400],
  ] as const)('answers %s %s as %j with %i in the spec error shape', async (method, url, as, status) => {
    const reply = await dispatcher.call(method, url, as as { scopes: string[] | null });
    expect(reply.status).toBe(status);
    expect(reply.body.error).toEqual(
      expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
    );
  });
  it('reads deliveries and the subscription on the bounded read pool: past the statement timeout 503, then served again', async () => {
    const clientId = randomUUID();
    const deep = await dispatcher.call('GET', '/webhooks/deliveries?offset=10001', rsp(clientId));
    expect(deep.status).toBe(400);
    expect(deep.body.error.details.issues).toEqual([expect.objectContaining({ field: 'offset' })]);
    await dispatcher.db.query('BEGIN');
    try {
      await dispatcher.db.query('LOCK TABLE deliveries IN ACCESS EXCLUSIVE MODE');
      for (const url of ['/webhooks/deliveries', '/webhooks/subscription']) {
        const held = await dispatcher.call('GET', url, rsp(clientId));
        expect({ url, status: held.status, details: held.body.error.details }).toEqual({
          url,
          status: 503,
          details: { reason: 'statementTimeout', timeoutMs: 1000 },
        });
      }
    } finally {
      await dispatcher.db.query('ROLLBACK');
    }
    expect((await dispatcher.call('GET', '/webhooks/deliveries', rsp(clientId))).status).toBe(200);
  });
});
