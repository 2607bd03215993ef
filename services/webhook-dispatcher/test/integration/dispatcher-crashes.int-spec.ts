import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { aNewLocation, freePort, publish, REPO_ROOT, spawnTs, type TsProcess, waitFor } from '@lx/testing';
import {
  aWebhookSecret,
  isAbout,
  receiptsOf,
  type DispatcherWorld,
  prepareDispatcherWorld,
  type Receiver,
  startReceiver,
} from '../support/dispatcher-harness';

const MAIN = join(REPO_ROOT, 'services/webhook-dispatcher/src/main.ts');

/**
 * The dispatcher as its own process, killed with SIGKILL at the worst moments, against real Kafka, Postgres and HTTP
 * receivers. Receivers dedupe on webhook-id, as Standard Webhooks asks of them: every delivery must reach them, and
 * a repeated webhook-id is only allowed for an attempt whose outcome the killed process never recorded.
 */
describe('webhook dispatcher killed with SIGKILL', () => {
  let world: DispatcherWorld;
  const children: TsProcess[] = [];
  const receivers: Receiver[] = [];

  /** Starts a dispatcher process (a replica) in this test's world and waits until it is ready. */
  async function startReplica(): Promise<TsProcess> {
    const port = await freePort();
    const child = spawnTs(MAIN, { ...world.env, HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port) });
    children.push(child);
    const url = `http://127.0.0.1:${port}/health/ready`;
    await waitFor(`a dispatcher ready on port ${port}`, async () => (await fetch(url)).status === 200, 90_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${child.output()}`);
      },
    );
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

  it('delivers every event of a burst once per webhook-id when killed in the middle of it', async () => {
    const EVENTS = 150;
    // Slow receivers (40 ms a reply, 4 at a time per endpoint): the burst takes seconds, and the kill lands in it.
    const slow = () => startReceiver(() => ({ status: 200, delayMs: 40 }));
    const receiversOfTest = [await slow(), await slow()];
    const replica = await startReplica();
    const clients = [await aSubscriber(receiversOfTest[0]!), await aSubscriber(receiversOfTest[1]!)];

    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i++)
      eventIds.push((await publish(world.bus, 'LOCATION_CREATED', aNewLocation(), 1)).id);
    const own = new Set(eventIds);
    const ownReceipts = (receiver: Receiver) =>
      receiver.received.filter((request) => own.has(String(request.headers['x-event-id'])));
    const total = () => receiversOfTest.reduce((sum, receiver) => sum + ownReceipts(receiver).length, 0);
    await waitFor('a third of the burst', async () => total() >= (EVENTS * 2) / 3, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${replica.output()}`);
    });
    await kill(replica);
    const killedAt = Date.now();
    expect(total()).toBeLessThan(EVENTS * 2);
    await startReplica();

    const { rows } = await waitForAll(world, eventIds, clients);
    for (const [index, receiver] of receiversOfTest.entries()) {
      const receipts = ownReceipts(receiver);
      const ids = receipts.map((request) => String(request.headers['webhook-id']));
      const expected = rows.filter((row) => row.client_id === clients[index]).map((row) => row.id);
      // A deduping receiver processed every delivery exactly once...
      expect(new Set(ids)).toEqual(new Set(expected));
      // ...and saw a repeat exactly for the attempts the killed replica made without recording their outcome: those in
      // flight at the kill and those answered but still waiting for their batch of attempt records to be written.
      // Each of them reached the receiver before the kill; the restarted replica repeated it once, and nothing else.
      const { rows: recorded } = await world.db.query<{ count: string }>(
        `SELECT count(*) FROM delivery_attempts WHERE delivery_id = ANY($1::uuid[]) AND attempted_at < $2`,
        [expected, new Date(killedAt)],
      );
      const beforeKill = receipts.filter((request) => request.at < killedAt);
      const repeated = [...new Set(ids)].filter((id) => ids.indexOf(id) !== ids.lastIndexOf(id));
      expect(ids.length - new Set(ids).size).toBe(beforeKill.length - Number(recorded[0]!.count));
      for (const id of repeated) {
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
        `SELECT id, client_id, status FROM deliveries WHERE event_id = ANY($1::uuid[]) AND client_id = ANY($2::text[])`,
        [eventIds, clients],
      ));
      return rows.length === eventIds.length * clients.length && rows.every((row) => row.status === 'DELIVERED');
    },
    120_000,
  );
  return { rows };
}
