import { randomUUID } from 'node:crypto';
import { parseDeliveryId } from '@lx/domain';
import { aNewLocation, publish, type TsProcess, waitFor } from '@lx/testing';
import {
  aWebhookSecret,
  isAbout,
  receiptsOf,
  type DispatcherWorld,
  prepareDispatcherWorld,
  type Receiver,
  startDispatcherProcess,
  startReceiver,
} from '../support/dispatcher-harness';

/**
 * The dispatcher as its own processes (replicas), killed with SIGKILL at the worst moments, against real Kafka,
 * Postgres and HTTP receivers. Receivers dedupe on webhook-id, as Standard Webhooks asks of them: every delivery must
 * reach them, and a repeated webhook-id is only allowed for an attempt whose outcome the killed process never
 * recorded (a message its endpoint's cursor had not passed in a written checkpoint).
 */
describe('webhook dispatcher killed with SIGKILL', () => {
  let world: DispatcherWorld;
  const children: TsProcess[] = [];
  const receivers: Receiver[] = [];

  /** Starts a dispatcher process (a replica) in this test's world and waits until it is ready. */
  async function startReplica(): Promise<TsProcess> {
    const child = await startDispatcherProcess(world);
    children.push(child);
    return child;
  }

  async function kill(child: TsProcess): Promise<void> {
    child.process.kill('SIGKILL');
    await child.exited;
  }

  beforeAll(async () => {
    world = await prepareDispatcherWorld({
      WEBHOOK_RETRY_SCHEDULE: '3s,3s',
      WEBHOOK_CONNECT_TIMEOUT: '1s',
      WEBHOOK_RESPONSE_TIMEOUT: '2s',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
    });
  }, 90_000);

  // A replica a failed test left running would deliver beside the next test's: each test ends with none running.
  afterEach(async () => {
    const running = children.filter((child) => child.process.exitCode === null && child.process.signalCode === null);
    await Promise.all(running.map(kill));
  });

  afterAll(async () => {
    for (const child of children) child.process.kill('SIGKILL');
    await Promise.all(children.map((child) => child.exited));
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await world?.close();
  });

  async function aSubscriber(receiver: Receiver) {
    receivers.push(receiver);
    const clientId = randomUUID();
    await world.publishClient('CLIENT_REGISTERED', { clientId, webhookUrl: receiver.url, secret: aWebhookSecret() }, 1);
    await world.waitForSubscription(clientId, 1);
    return clientId;
  }

  it('resumes a delivery in backoff on its schedule after a restart', async () => {
    const replica = await startReplica();
    const location = aNewLocation();
    // The first attempt of this test's delivery fails; other test files' events, which arrive too, are accepted.
    const receiver = await startReceiver((request, attempt) =>
      isAbout(request, location.id) && attempt === 0 ? { status: 500 } : { status: 200 },
    );
    const clientId = await aSubscriber(receiver);
    const { id: eventId } = await publish(world.bus, 'LOCATION_CREATED', location, 1);

    await waitFor('the failed first attempt to be recorded', async () => {
      const [delivery] = (await world.deliveries(eventId)).filter((d) => d.client_id === clientId);
      return delivery?.last_status_code === 500;
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${replica.output()}`);
    });
    await kill(replica);
    await startReplica();
    const restartedAt = Date.now();

    await waitFor('the delivery', async () => {
      const [delivery] = (await world.deliveries(eventId)).filter((d) => d.client_id === clientId);
      return delivery?.status === 'DELIVERED';
    });
    const [first, second] = receiptsOf(receiver, eventId);
    expect(receiptsOf(receiver, eventId)).toHaveLength(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    // On schedule: 3 s after the first attempt (jitter off), not earlier, and not lost; promptly once the restarted
    // replica is up, when the restart itself took longer than the backoff (a loaded machine: starting a process from
    // TypeScript sources takes seconds).
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(2_900);
    expect(second!.at - Math.max(first!.at + 3_000, restartedAt)).toBeLessThan(5_000);
  });

  /** Which replica (its database session) holds which endpoints of this world, by the advisory locks it holds. */
  async function holders(): Promise<Map<number, string[]>> {
    const { rows } = await world.db.query<{ pid: number; client_id: string }>(
      `SELECT l.pid, s.client_id FROM pg_locks l JOIN subscriptions s ON s.endpoint_no = l.objid::bigint
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.classid = (hashtext($1 || ':endpoints'))::oid`,
      [world.schema],
    );
    const held = new Map<number, string[]>();
    for (const row of rows) held.set(row.pid, [...(held.get(row.pid) ?? []), row.client_id]);
    return held;
  }

  it('delivers every event of a burst once per webhook-id when a replica is killed in the middle of it, the other taking its endpoints over', async () => {
    const EVENTS = 150;
    // Slow receivers (40 ms a reply, 4 at a time per endpoint): the burst takes seconds, and the kill lands in it.
    const slow = () => startReceiver(() => ({ status: 200, delayMs: 40 }));
    const receiversOfTest = [await slow(), await slow(), await slow(), await slow()];
    const killed = await startReplica();
    await startReplica();
    const clients: string[] = [];
    for (const receiver of receiversOfTest) clients.push(await aSubscriber(receiver));
    // The two replicas share the endpoints (the earlier test's one too): each holds some of this test's.
    await waitFor(
      'the endpoints shared by both replicas',
      async () => {
        const held = [...(await holders()).values()];
        const { rows } = await world.db.query<{ count: number }>('SELECT count(*)::int AS count FROM subscriptions');
        return (
          held.length === 2 &&
          held.flat().length === rows[0]!.count &&
          held.every((endpoints) => endpoints.some((clientId) => clients.includes(clientId)))
        );
      },
      30_000,
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify([...(await holders())])}\n${killed.output()}`);
    });

    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i++)
      eventIds.push((await publish(world.bus, 'LOCATION_CREATED', aNewLocation(), 1)).id);
    const own = new Set(eventIds);
    const ownReceipts = (receiver: Receiver) =>
      receiver.received.filter((request) => own.has(String(request.headers['x-event-id'])));
    const total = () => receiversOfTest.reduce((sum, receiver) => sum + ownReceipts(receiver).length, 0);
    await waitFor('a third of the burst', async () => total() >= (EVENTS * 4) / 3, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${killed.output()}`);
    });
    const before = await holders();
    await kill(killed);
    const killedAt = Date.now();
    // The cursors as the killed replica left them, read before its session ends: the other replica takes its
    // endpoints over then and moves their cursors on.
    const { rows: cursors } = await world.db.query<{ client_id: string; cursor_position: string }>(
      'SELECT client_id, cursor_position FROM subscriptions WHERE client_id = ANY($1::text[])',
      [clients],
    );
    const cursorAtKill = new Map(cursors.map((row) => [row.client_id, Number(row.cursor_position)]));
    expect(total()).toBeLessThan(EVENTS * 4);
    // The killed replica's endpoints: those whose session is gone; their cursors stand where it last wrote them.
    await waitFor('the killed session to end', async () => {
      const { rows } = await world.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity');
      const now = new Set(rows.map((row) => row.pid));
      return [...before.keys()].some((pid) => !now.has(pid));
    });
    const { rows: sessions } = await world.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity');
    const survivors = new Set(sessions.map((row) => row.pid));
    const orphaned = new Set([...before].filter(([pid]) => !survivors.has(pid)).flatMap(([, endpoints]) => endpoints));
    expect([...orphaned].filter((clientId) => clients.includes(clientId)).length).toBeGreaterThan(0);

    const { rows } = await waitForAll(world, eventIds, clients);
    for (const [index, receiver] of receiversOfTest.entries()) {
      const clientId = clients[index]!;
      const receipts = ownReceipts(receiver);
      const ids = receipts.map((request) => String(request.headers['webhook-id']));
      const expected = rows.filter((row) => row.client_id === clientId).map((row) => row.id);
      // A deduping receiver processed every delivery exactly once...
      expect(new Set(ids)).toEqual(new Set(expected));
      // ...and saw a repeat exactly for the messages the killed replica had sent but not yet passed with a written
      // checkpoint of its endpoint's cursor; the other replica's endpoints saw none.
      const unrecorded = receipts.filter(
        (request) =>
          orphaned.has(clientId) &&
          request.at < killedAt &&
          parseDeliveryId(String(request.headers['webhook-id']))!.position > cursorAtKill.get(clientId)!,
      );
      expect(ids.length - new Set(ids).size).toBe(unrecorded.length);
      for (const id of [...new Set(ids)].filter((each) => ids.indexOf(each) !== ids.lastIndexOf(each))) {
        const times = receipts.filter((request) => request.headers['webhook-id'] === id).map((request) => request.at);
        expect({
          id,
          before: times.filter((at) => at < killedAt).length,
          after: times.filter((at) => at > killedAt).length,
        }).toEqual({ id, before: 1, after: 1 });
      }
    }
  }, 180_000);
});

async function waitForAll(world: DispatcherWorld, eventIds: string[], clients: string[]) {
  let rows: { id: string; client_id: string; status: string }[] = [];
  await waitFor(
    'every delivery DELIVERED',
    async () => {
      ({ rows } = await world.db.query<{ id: string; client_id: string; status: string }>(
        `SELECT id, client_id, status FROM delivery_view WHERE event_id = ANY($1::uuid[]) AND client_id = ANY($2::text[])`,
        [eventIds, clients],
      ));
      return rows.length === eventIds.length * clients.length && rows.every((row) => row.status === 'DELIVERED');
    },
    120_000,
  );
  return { rows };
}
