import { randomUUID } from 'node:crypto';
import { aNewLocation, publish, type TsProcess, waitFor } from '@lx/testing';
import {
  aWebhookSecret,
  type DispatcherWorld,
  isAbout,
  prepareDispatcherWorld,
  type Answer,
  type ReceivedRequest,
  type Receiver,
  receiptsOf,
  residentMb,
  startDispatcherProcess,
  startReceiver,
} from '../support/dispatcher-harness';

const BACKOFF_AFTER = 4;

/**
 * Fan-out isolation: each endpoint is a cursor of its own, so what one endpoint answers decides only its own pace.
 * A dispatcher process against real Kafka, Postgres and HTTP receivers on loopback.
 */
describe('webhook fan-out: one endpoint costs no other', () => {
  let world: DispatcherWorld;
  let dispatcher: TsProcess;
  const receivers: Receiver[] = [];
  const own = new Set<string>();
  const isOwn = (request: ReceivedRequest) => [...own].some((id) => isAbout(request, id));

  beforeAll(async () => {
    world = await prepareDispatcherWorld({
      WEBHOOK_RETRY_SCHEDULE: '30s,30s',
      WEBHOOK_CONNECT_TIMEOUT: '1s',
      WEBHOOK_RESPONSE_TIMEOUT: '1s',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_ENDPOINT_BACKOFF_AFTER: String(BACKOFF_AFTER),
      WEBHOOK_WINDOW_MB: '4',
    });
    dispatcher = await startDispatcherProcess(world);
  }, 120_000);

  afterAll(async () => {
    dispatcher?.process.kill('SIGKILL');
    await dispatcher?.exited;
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await world?.close();
  });

  async function aSubscriber(answer: (request: ReceivedRequest, attempt: number) => Answer) {
    const receiver = await startReceiver((request, attempt) =>
      isOwn(request) ? answer(request, attempt) : { status: 200 },
    );
    receivers.push(receiver);
    const clientId = randomUUID();
    await world.publishClient('CLIENT_REGISTERED', { clientId, webhookUrl: receiver.url, secret: aWebhookSecret() }, 1);
    await world.waitForSubscription(clientId, 1);
    return { clientId, receiver };
  }

  async function aLocationEvent(): Promise<{ eventId: string; locationId: string; publishedAt: number }> {
    const location = aNewLocation();
    own.add(location.id);
    const publishedAt = Date.now();
    const { id } = await publish(world.bus, 'LOCATION_CREATED', location, 1);
    return { eventId: id, locationId: location.id, publishedAt };
  }

  const statusOf = async (eventId: string, clientId: string) =>
    (await world.deliveries(eventId)).find((delivery) => delivery.client_id === clientId);

  it("attempts every message of an endpoint that answers 400 at once: a 400 is that message's outcome, not the endpoint's", async () => {
    const rejecting = await aSubscriber(() => ({ status: 400 }));
    const events: Awaited<ReturnType<typeof aLocationEvent>>[] = [];
    // More than the backoff threshold: were a 400 an endpoint failure, the cursor would pause after BACKOFF_AFTER.
    for (let i = 0; i < 3 * BACKOFF_AFTER; i++) events.push(await aLocationEvent());

    await waitFor('every message attempted once', async () =>
      events.every(({ eventId }) => receiptsOf(rejecting.receiver, eventId).length === 1),
    );
    const last = events[events.length - 1]!;
    expect(receiptsOf(rejecting.receiver, last.eventId)[0]!.at - last.publishedAt).toBeLessThan(5_000);
    for (const { eventId } of events) {
      await waitFor(
        'its FAILED record',
        async () => (await statusOf(eventId, rejecting.clientId))?.status === 'FAILED',
      );
      expect(await statusOf(eventId, rejecting.clientId)).toMatchObject({ attempts: 1, last_status_code: 400 });
    }
  });

  it("attempts a flaky endpoint's new event within a second while its older ones wait for their retries", async () => {
    const failing = new Set<string>();
    const flaky = await aSubscriber((request, attempt) =>
      attempt === 0 && [...failing].some((id) => isAbout(request, id)) ? { status: 500 } : { status: 200 },
    );
    const older: string[] = [];
    for (let i = 0; i < BACKOFF_AFTER - 1; i++) {
      const location = aNewLocation();
      failing.add(location.id);
      own.add(location.id);
      older.push((await publish(world.bus, 'LOCATION_CREATED', location, 1)).id);
    }
    await waitFor('the older messages failed once', async () =>
      older.every((eventId) => receiptsOf(flaky.receiver, eventId).length === 1),
    );

    const fresh = await aLocationEvent();
    await waitFor('the new event', async () => receiptsOf(flaky.receiver, fresh.eventId).length === 1, 10_000);
    const receivedAt = receiptsOf(flaky.receiver, fresh.eventId)[0]!.at;
    // Within a second of reaching the dispatcher's log (publishing and the intake take their own time before that).
    const { rows } = await world.db.query<{ created_at: Date }>(
      'SELECT created_at FROM notifications WHERE event_id = $1',
      [fresh.eventId],
    );
    expect(receivedAt - rows[0]!.created_at.getTime()).toBeLessThan(1_000);
    // Failed attempts are recorded in batches, after the reply: wait for the records (the first retry is 5 s away).
    for (const eventId of older) {
      await waitFor(
        `the failed attempt of ${eventId} recorded`,
        async () => (await statusOf(eventId, flaky.clientId))?.attempts === 1,
        3_000,
      );
      expect(await statusOf(eventId, flaky.clientId)).toMatchObject({
        status: 'PENDING',
        attempts: 1,
        last_status_code: 500,
      });
    }
  });

  it("keeps a healthy endpoint's latency beside a dead one with 100,000 messages waiting, in flat memory", async () => {
    const healthy = await aSubscriber(() => ({ status: 200 }));
    const dead = await aSubscriber(() => 'hang');
    const latencies = async (count: number) => {
      const measured: number[] = [];
      for (let i = 0; i < count; i++) {
        const { eventId, publishedAt } = await aLocationEvent();
        await waitFor('the healthy delivery', async () => receiptsOf(healthy.receiver, eventId).length === 1, 10_000);
        measured.push(receiptsOf(healthy.receiver, eventId)[0]!.at - publishedAt);
      }
      return measured.sort((a, b) => a - b);
    };
    const before = await latencies(10);

    // 100,000 export notifications for the dead endpoint alone (1 KB each), appended as the intake appends them, twice:
    // the dispatcher reads them all (every message passes its window once), and must not keep what it read.
    const backlog = async () => {
      await world.db.query(
        `INSERT INTO notifications (event_id, event_type, path, body, headers, occurred_at, created_at, recipient)
         SELECT gen_random_uuid(), 'EXPORT_COMPLETED', '/locations/exports/events', repeat('x', 1000), '{}', now(),
           now(), $1
         FROM generate_series(1, 100000)`,
        [dead.clientId],
      );
      await world.db.query(`SELECT pg_notify('webhook_log_' || md5(current_schema()), '')`);
      // Read once the healthy endpoint's cursor has passed all of it (none of it is the healthy endpoint's).
      await waitFor(
        'the healthy cursor past the backlog',
        async () => {
          const { rows } = await world.db.query<{ passed: boolean }>(
            `SELECT s.cursor_position >= (SELECT max(position) FROM notifications) AS passed
             FROM subscriptions s WHERE s.client_id = $1`,
            [healthy.clientId],
          );
          return rows[0]?.passed === true;
        },
        60_000,
      );
      return residentMb(dispatcher.process.pid!);
    };
    const first = await backlog();
    // The dead endpoint's cursor pauses after BACKOFF_AFTER failures in a row (each a 1 s timeout).
    await waitFor(
      'the dead endpoint in backoff',
      async () => {
        const { rows } = await world.db.query<{ count: string }>(
          `SELECT count(*) FROM deliveries WHERE client_id = $1 AND status = 'PENDING'`,
          [dead.clientId],
        );
        return Number(rows[0]!.count) >= BACKOFF_AFTER;
      },
      30_000,
    );
    const second = await backlog();
    const after = await latencies(10);

    const median = (values: number[]) => values[Math.floor(values.length / 2)]!;
    expect(median(after)).toBeLessThan(Math.max(2 * median(before), median(before) + 200));
    // Flat: the second 100 MB of waiting messages (twice that as text and bytes, were they kept) stay in the database,
    // not in the dispatcher; what grows is the garbage of reading them once (27.6 MB in one CI run on two busy cores).
    expect(second - first).toBeLessThan(50);
    // And the dead endpoint's failures wrote a bounded number of rows, not one per waiting message.
    const { rows } = await world.db.query<{ count: string }>('SELECT count(*) FROM deliveries WHERE client_id = $1', [
      dead.clientId,
    ]);
    expect(Number(rows[0]!.count)).toBeLessThanOrEqual(BACKOFF_AFTER + 2);
  }, 120_000);
});
