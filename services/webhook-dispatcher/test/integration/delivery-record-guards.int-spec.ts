import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { Outbox } from '@lx/messaging';
import { SystemClock, TimeOrderedUuidGenerator } from '@lx/platform';
import { requireEnv, usePrivateSchema } from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  DeliveryRepository,
  type Notification,
} from '../../src/delivery/infrastructure/delivery.repository';
import { EndpointEventsPublisher } from '../../src/delivery/infrastructure/endpoint-events.publisher';

/**
 * Each safety layer of the delivery records on its own, through the repository over the real tables (the service's
 * migrations in a private schema; no consumer, no sender): through Kafka and the dispatcher the layers cover for each
 * other. The layers: the unique delivery per event and client (a redelivered event, in a later batch or in the same
 * one), the attempt number an outcome belongs to (an outcome whose lease lapsed and whose delivery was claimed again
 * changes nothing), the PENDING condition (an outcome recorded twice changes a finished delivery no more) and the
 * unique attempt row. Each test fails when its layer is removed from DeliveryRepository's SQL (checked by hand). The
 * DISTINCT ON of the delivery insert is not a layer of its own: ON CONFLICT DO NOTHING also skips a duplicate within
 * one statement, so removing DISTINCT ON fails no test, and removing both fails both uniqueness tests.
 */
describe('delivery record safety layers, each alone (the repository over real tables)', () => {
  const { schema, db } = usePrivateSchema('wh_guards', MIGRATIONS);
  let pool: Pool;
  let deliveries: DeliveryRepository;

  beforeAll(() => {
    pool = new Pool({ connectionString: requireEnv('DATABASE_URL'), options: `-c search_path=${schema}`, max: 2 });
    const endpointEvents = new EndpointEventsPublisher(new Outbox(), new SystemClock(), new TimeOrderedUuidGenerator());
    deliveries = new DeliveryRepository(pool, endpointEvents);
  });

  afterAll(() => pool.end());

  async function aSubscription(): Promise<string> {
    const clientId = randomUUID();
    await db.query(
      `INSERT INTO subscriptions (client_id, version, enabled, webhook_url, secret_sealed, secret_version, updated_at)
       VALUES ($1, 1, true, 'http://127.0.0.1:9/hooks', 'c2VhbGVk', 1, now())`,
      [clientId],
    );
    return clientId;
  }

  const aNotification = (): Notification => ({
    eventId: randomUUID(),
    eventType: 'LOCATION_CREATED',
    path: '/locations/events',
    body: '{"event":{}}',
    headers: {},
    occurredAt: new Date().toISOString(),
  });

  const rowsOf = async (eventId: string) =>
    (
      await db.query<{ id: string; status: string; attempts: number; last_status_code: number | null }>(
        'SELECT id, status, attempts, last_status_code FROM deliveries WHERE event_id = $1',
        [eventId],
      )
    ).rows;

  /** Claims the client's due deliveries (one attempt each) as the dispatcher does. */
  const claim = async (clientId: string): Promise<ClaimedDelivery[]> =>
    (await deliveries.claim(new Map(), 16, 100, 60_000)).filter((claimed) => claimed.clientId === clientId);

  const outcome = (claimed: ClaimedDelivery, status: AttemptRecord['status'], statusCode: number): AttemptRecord => ({
    deliveryId: claimed.id,
    clientId: claimed.clientId,
    attempt: claimed.attempt,
    attemptedAt: new Date(),
    url: 'http://127.0.0.1:9/hooks/locations/events',
    statusCode,
    latencyMs: 3,
    status,
    ...(status === 'PENDING' ? { nextAttemptAt: new Date(Date.now() + 60_000) } : {}),
  });

  it('unique delivery per event and client: an event recorded again in a later batch adds no delivery', async () => {
    const clientId = await aSubscription();
    const notification = aNotification();

    const first = await deliveries.record([{ notification, recipients: { clientId } }]);
    const again = await deliveries.record([{ notification, recipients: { clientId } }]);

    expect(first.get(notification.eventId)).toBe(1);
    expect(again.get(notification.eventId)).toBeUndefined();
    expect(await rowsOf(notification.eventId)).toHaveLength(1);
  });

  it('unique delivery per event and client: an event twice in one batch makes one delivery', async () => {
    const clientId = await aSubscription();
    const notification = aNotification();

    const created = await deliveries.record([
      { notification, recipients: { clientId } },
      { notification, recipients: { clientId } },
    ]);

    expect(created.get(notification.eventId)).toBe(1);
    expect(await rowsOf(notification.eventId)).toHaveLength(1);
  });

  it('attempt number: the outcome of an attempt whose lease lapsed, recorded after the next claim, changes nothing', async () => {
    const clientId = await aSubscription();
    const notification = aNotification();
    await deliveries.record([{ notification, recipients: { clientId } }]);
    const [first] = await claim(clientId);
    // The lease lapses (the replica seemed gone) and the delivery is claimed again for attempt 2.
    await db.query(`UPDATE deliveries SET next_attempt_at = now() - interval '1 second' WHERE id = $1`, [first!.id]);
    const [second] = await claim(clientId);
    expect(second!.attempt).toBe(2);

    await deliveries.recordAttempts([outcome(first!, 'FAILED', 400)]);

    expect(await rowsOf(notification.eventId)).toEqual([
      { id: first!.id, status: 'PENDING', attempts: 2, last_status_code: null },
    ]);
    await deliveries.recordAttempts([outcome(second!, 'DELIVERED', 200)]);
    expect(await rowsOf(notification.eventId)).toEqual([
      { id: first!.id, status: 'DELIVERED', attempts: 2, last_status_code: 200 },
    ]);
    // Both attempts are on record, the late one included.
    const { rows } = await db.query('SELECT attempt, status_code FROM delivery_attempts WHERE delivery_id = $1', [
      first!.id,
    ]);
    expect(rows.sort((a, b) => a.attempt - b.attempt)).toEqual([
      { attempt: 1, status_code: 400 },
      { attempt: 2, status_code: 200 },
    ]);
  });

  it('PENDING condition and unique attempt row: an outcome recorded twice changes a finished delivery no more', async () => {
    const clientId = await aSubscription();
    const notification = aNotification();
    await deliveries.record([{ notification, recipients: { clientId } }]);
    const [claimed] = await claim(clientId);

    await deliveries.recordAttempts([outcome(claimed!, 'DELIVERED', 200)]);
    await deliveries.recordAttempts([outcome(claimed!, 'FAILED', 400)]);

    expect(await rowsOf(notification.eventId)).toEqual([
      { id: claimed!.id, status: 'DELIVERED', attempts: 1, last_status_code: 200 },
    ]);
    const { rows } = await db.query('SELECT attempt, status_code FROM delivery_attempts WHERE delivery_id = $1', [
      claimed!.id,
    ]);
    expect(rows).toEqual([{ attempt: 1, status_code: 200 }]);
  });
});
