import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { deliveryIdOf } from '@lx/domain';
import { Outbox } from '@lx/messaging';
import { SystemClock, TimeOrderedUuidGenerator } from '@lx/platform';
import { requireEnv, usePrivateSchema } from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';
import type { Notification } from '../../src/delivery/intake/notification';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  DeliveryRepository,
} from '../../src/delivery/infrastructure/delivery.repository';
import { EndpointEventsPublisher } from '../../src/delivery/infrastructure/endpoint-events.publisher';
import { NotificationLogRepository } from '../../src/delivery/infrastructure/notification-log.repository';

/**
 * Each safety layer of the delivery records on its own, through the repositories over the real tables (the service's
 * migrations in a private schema; no consumer, no sender): through Kafka and the dispatcher the layers cover for each
 * other. The layers: the unique notification per event in the log (a redelivered event, in a later batch or in the
 * same one), the unique delivery row per message and endpoint (a first attempt's failure recorded twice), the attempt
 * number an outcome belongs to (an outcome whose lease lapsed and whose delivery was claimed again changes nothing),
 * the PENDING condition (an outcome recorded twice changes a finished delivery no more), the unique attempt row, and
 * the epoch and forward-only condition of a cursor's checkpoint. Each test fails when its layer is removed from the
 * repositories' SQL.
 */
describe('delivery record safety layers, each alone (the repository over real tables)', () => {
  const { schema, db } = usePrivateSchema('wh_guards', MIGRATIONS);
  let pool: Pool;
  let deliveries: DeliveryRepository;
  let log: NotificationLogRepository;

  beforeAll(() => {
    pool = new Pool({ connectionString: requireEnv('DATABASE_URL'), options: `-c search_path=${schema}`, max: 2 });
    const endpointEvents = new EndpointEventsPublisher(new Outbox(), new SystemClock(), new TimeOrderedUuidGenerator());
    deliveries = new DeliveryRepository(pool, endpointEvents);
    log = new NotificationLogRepository(pool);
  });

  /** Appends to the log in a transaction of its own, as the intake projection does; how many were new. */
  async function append(notifications: Notification[]): Promise<number> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const appended = await log.append(client, notifications);
      await client.query('COMMIT');
      return appended;
    } finally {
      client.release();
    }
  }

  /** A message in the log whose first attempt to the client failed with a 500: a delivery row due now. */
  async function aRetry(clientId: string): Promise<Notification> {
    const notification = aNotification();
    await append([notification]);
    const { rows } = await db.query<{ position: string; endpoint_no: string }>(
      `SELECT n.position, s.endpoint_no FROM notifications n, subscriptions s WHERE n.event_id = $1 AND s.client_id = $2`,
      [notification.eventId, clientId],
    );
    const id = deliveryIdOf(Number(rows[0]!.position), Number(rows[0]!.endpoint_no));
    await deliveries.recordAttempts([
      { ...firstFailure(id, clientId, notification.eventId), nextAttemptAt: new Date(Date.now() - 1_000) },
    ]);
    return notification;
  }

  const firstFailure = (id: string, clientId: string, eventId: string): AttemptRecord => ({
    deliveryId: id,
    clientId,
    attempt: 1,
    attemptedAt: new Date(),
    url: 'http://127.0.0.1:9/hooks/locations/events',
    statusCode: 500,
    latencyMs: 3,
    status: 'PENDING',
    nextAttemptAt: new Date(Date.now() + 60_000),
    first: { eventId, row: true },
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
    await deliveries.claim(new Map(), 16, 100, 60_000, [clientId]);

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

  it('unique notification per event: an event appended again in a later batch adds nothing to the log', async () => {
    const notification = aNotification();

    expect(await append([notification])).toBe(1);
    expect(await append([notification])).toBe(0);

    const { rows } = await db.query('SELECT position FROM notifications WHERE event_id = $1', [notification.eventId]);
    expect(rows).toHaveLength(1);
  });

  it('unique notification per event: an event twice in one batch is appended once', async () => {
    const notification = aNotification();

    expect(await append([notification, notification])).toBe(1);
  });

  it('unique delivery row: the failure of a first attempt recorded twice makes one delivery and one attempt', async () => {
    const clientId = await aSubscription();
    const notification = aNotification();
    await append([notification]);
    const id = deliveryIdOf(1_000_000, 1);

    await deliveries.recordAttempts([firstFailure(id, clientId, notification.eventId)]);
    await deliveries.recordAttempts([firstFailure(id, clientId, notification.eventId)]);

    expect(await rowsOf(notification.eventId)).toEqual([{ id, status: 'PENDING', attempts: 1, last_status_code: 500 }]);
    const { rows } = await db.query('SELECT attempt FROM delivery_attempts WHERE delivery_id = $1', [id]);
    expect(rows).toEqual([{ attempt: 1 }]);
  });

  it("checkpoint: only the endpoint's current epoch moves its cursor, and only forward", async () => {
    const clientId = await aSubscription();
    const taken = await deliveries.takeEndpoint(clientId);
    const cursor = async () =>
      Number(
        (
          await db.query<{ cursor_position: string }>(
            'SELECT cursor_position FROM subscriptions WHERE client_id = $1',
            [clientId],
          )
        ).rows[0]!.cursor_position,
      );

    // A replica whose epoch is gone learns that another one holds the endpoint now.
    expect(await deliveries.recordAttempts([], [{ clientId, epoch: taken!.epoch - 1, position: 50 }])).toEqual({
      fenced: [clientId],
    });
    expect(await cursor()).toBe(taken!.cursor);
    await deliveries.recordAttempts([], [{ clientId, epoch: taken!.epoch, position: 50 }]);
    expect(await cursor()).toBe(50);
    await deliveries.recordAttempts([], [{ clientId, epoch: taken!.epoch, position: 40 }]);
    expect(await cursor()).toBe(50);
  });

  it('purge: ended records past their retention go with their attempts, then messages every cursor passed', async () => {
    const clientId = await aSubscription();
    const kept = await aRetry(clientId);
    const ended = await aRetry(clientId);
    const [claimed] = (await claim(clientId)).filter((delivery) => delivery.eventId === ended.eventId);
    await deliveries.recordAttempts([outcome(claimed!, 'DELIVERED', 200)]);
    const passed = aNotification();
    await append([passed]);
    await db.query(`UPDATE deliveries SET finished_at = now() - interval '2 days' WHERE event_id = $1`, [
      ended.eventId,
    ]);
    await db.query(`UPDATE notifications SET created_at = now() - interval '2 days'`);
    await db.query(`UPDATE subscriptions SET cursor_position = (SELECT max(position) FROM notifications)`);

    await deliveries.purge(86_400_000, 86_400_000);

    expect(await rowsOf(ended.eventId)).toEqual([]);
    const { rows: attempts } = await db.query('SELECT 1 FROM delivery_attempts WHERE delivery_id = $1', [claimed!.id]);
    expect(attempts).toEqual([]);
    // The PENDING record stays, and so does its message; the other messages are gone.
    expect(await rowsOf(kept.eventId)).toHaveLength(1);
    const { rows: messages } = await db.query<{ event_id: string }>('SELECT event_id FROM notifications');
    expect(messages.map((row) => row.event_id)).toContain(kept.eventId);
    expect(messages.map((row) => row.event_id)).not.toContain(passed.eventId);
    expect(messages.map((row) => row.event_id)).not.toContain(ended.eventId);
  });

  it('attempt number: the outcome of an attempt whose lease lapsed, recorded after the next claim, changes nothing', async () => {
    const clientId = await aSubscription();
    const notification = await aRetry(clientId);
    const [first] = await claim(clientId);
    // The lease lapses (the replica seemed gone) and the delivery is claimed again for attempt 2.
    await db.query(`UPDATE deliveries SET next_attempt_at = now() - interval '1 second' WHERE id = $1`, [first!.id]);
    const [second] = await claim(clientId);
    expect(second!.attempt).toBe(3);

    await deliveries.recordAttempts([outcome(first!, 'FAILED', 400)]);

    expect(await rowsOf(notification.eventId)).toEqual([
      { id: first!.id, status: 'PENDING', attempts: 3, last_status_code: 500 },
    ]);
    await deliveries.recordAttempts([outcome(second!, 'DELIVERED', 200)]);
    expect(await rowsOf(notification.eventId)).toEqual([
      { id: first!.id, status: 'DELIVERED', attempts: 3, last_status_code: 200 },
    ]);
    // Both attempts are on record, the late one included.
    const { rows } = await db.query('SELECT attempt, status_code FROM delivery_attempts WHERE delivery_id = $1', [
      first!.id,
    ]);
    expect(rows.sort((a, b) => a.attempt - b.attempt)).toEqual([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 400 },
      { attempt: 3, status_code: 200 },
    ]);
  });

  it('PENDING condition and unique attempt row: an outcome recorded twice changes a finished delivery no more', async () => {
    const clientId = await aSubscription();
    const notification = await aRetry(clientId);
    const [claimed] = await claim(clientId);

    await deliveries.recordAttempts([outcome(claimed!, 'DELIVERED', 200)]);
    await deliveries.recordAttempts([outcome(claimed!, 'FAILED', 400)]);

    expect(await rowsOf(notification.eventId)).toEqual([
      { id: claimed!.id, status: 'DELIVERED', attempts: 2, last_status_code: 200 },
    ]);
    const { rows } = await db.query(
      'SELECT attempt, status_code FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [claimed!.id],
    );
    expect(rows).toEqual([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 200 },
    ]);
  });
});
