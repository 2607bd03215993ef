import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { TOPICS } from '@lx/contracts';
import {
  freePort,
  type ReceivedMessage,
  REPO_ROOT,
  requireEnv,
  spawnTs,
  testTopic,
  type TsProcess,
  uniqueSuffix,
  waitFor,
  testKafkaClient,
} from '@lx/testing';
import { holdRelayLock, unpublishedEvents } from '../support/gate';
import { aLocationBody, type LocationCommandHarness, startLocationCommand } from '../support/location-command-harness';

/** Every event of the schema's store by id, and how many are behind the relay's checkpoint. */
async function storeOf(service: LocationCommandHarness) {
  const { rows } = await service.db.query<{ event_id: string; stream_id: string; stream_version: number }>(
    'SELECT event_id, stream_id, stream_version FROM events ORDER BY global_position',
  );
  return { events: rows, unpublished: () => unpublishedEvents(service.db) };
}

/**
 * Waits until the test consumer has read, in every partition where `received` holds a message, up to the end the
 * partition has now: a message published before this call (a duplicate included) has then been received.
 */
async function drained(received: () => ReceivedMessage[]): Promise<void> {
  const kafka = testKafkaClient();
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(testTopic(TOPICS.locationEvents.name)).finally(() => admin.disconnect());
  const partitions = new Set(received().map((message) => message.partition));
  await waitFor('the test consumer to read to the end of every partition', () =>
    Promise.resolve(
      ends
        .filter(({ partition }) => partitions.has(partition))
        .every(({ partition, high }) =>
          received().some((message) => message.partition === partition && BigInt(message.offset) >= BigInt(high) - 1n),
        ),
    ),
  );
}

/** Asserts at-least-once and per-key order the way a consumer sees it: deduplicated by event id, keeping first arrivals. */
function expectEveryEventOnceInOrder(
  received: ReceivedMessage[],
  stored: { event_id: string; stream_id: string; stream_version: number }[],
): { duplicates: number } {
  const firstArrivals = new Map<string, ReceivedMessage>();
  for (const message of received)
    if (!firstArrivals.has(message.event.id)) firstArrivals.set(message.event.id, message);
  expect([...firstArrivals.keys()].sort()).toEqual(stored.map((event) => event.event_id).sort());

  const versionsByKey = new Map<string, number[]>();
  for (const message of firstArrivals.values()) {
    versionsByKey.set(message.key, [...(versionsByKey.get(message.key) ?? []), message.version]);
  }
  for (const [key, versions] of versionsByKey) {
    const expected = stored.filter((event) => event.stream_id === key).map((event) => event.stream_version);
    expect({ key, versions }).toEqual({ key, versions: expected });
  }
  return { duplicates: received.length - firstArrivals.size };
}

/** Crashes of the process holding the relay, and two relays, against real Kafka and Postgres. */
describe('event log relay crash', () => {
  const brokers = requireEnv('KAFKA_BROKERS');
  const children: TsProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.process.kill('SIGKILL');
  });

  it('re-publishes the batch Kafka acknowledged but the relay did not checkpoint when it crashed in between, losing nothing', async () => {
    const schema = `lc_it_crash_${uniqueSuffix()}`;
    const lock = await holdRelayLock(schema);
    const service = await startLocationCommand({ DATABASE_SCHEMA: schema });
    try {
      const ids = Array.from({ length: 8 }, () => randomUUID());
      for (const id of ids) {
        await service.request('PUT', `/operator/locations/${id}`, { body: aLocationBody({ status: 'PLANNED' }) });
        for (const notes of ['a', 'b', 'c', 'd']) {
          await service.request('PATCH', `/operator/locations/${id}`, { body: { notes } });
        }
      }
      await service.stopApp();
      const store = await storeOf(service);
      expect(store.events).toHaveLength(40);
      expect(await store.unpublished()).toBe(40);

      const relayEnv = { ...process.env, DATABASE_SCHEMA: schema, KAFKA_BROKERS: brokers, RELAY_BATCH_SIZE: '10' };
      const relayFile = join(__dirname, '..', 'support', 'relay-process.ts');
      const crashing = spawnTs(relayFile, { ...relayEnv, CRASH_AFTER_PUBLISHES: '2' });
      children.push(crashing);
      await lock.release();
      const exit = await crashing.exited;
      expect({ exit, output: crashing.output() }).toMatchObject({ exit: { signal: 'SIGKILL' } });

      // Batch 2 reached Kafka but was never checkpointed: it is still ahead of the relay, and a consumer has it.
      await service.events.waitFor(20, ids);
      expect(await store.unpublished()).toBe(30);

      const restarted = spawnTs(relayFile, relayEnv);
      children.push(restarted);
      await waitFor('the restarted relay to drain the log', async () => (await store.unpublished()) === 0, 90_000);
      const received = await service.events.waitFor(50, ids);

      const { duplicates } = expectEveryEventOnceInOrder(received, store.events);
      expect(duplicates).toBe(10);
    } finally {
      await lock.release().catch(() => undefined);
      await service.close();
    }
  }, 300_000);

  it('loses no event when the service process is SIGKILLed while its relay is publishing, and resumes after restart', async () => {
    const schema = `lc_it_crash_${uniqueSuffix()}`;
    const lock = await holdRelayLock(schema);
    // In this process only to migrate the schema and watch Kafka; the service under test runs as a child.
    const observer = await startLocationCommand({ DATABASE_SCHEMA: schema });
    await observer.stopApp();
    try {
      const port = await freePort();
      const serviceEnv = {
        ...observer.env,
        HTTP_PORT: String(port),
        HTTP_HOST: '127.0.0.1',
        OUTBOX_BATCH_SIZE: '25',
        IMPORT_BATCH_SIZE: '500',
      };
      const mainFile = join(REPO_ROOT, 'services/location-command/src/main.ts');
      const baseUrl = `http://127.0.0.1:${port}`;
      const startService = async () => {
        const child = spawnTs(mainFile, serviceEnv);
        children.push(child);
        await waitFor('the service to be ready', async () => (await fetch(`${baseUrl}/health/ready`)).ok, 60_000);
        return child;
      };

      const first = await startService();
      const ids = Array.from({ length: 1_000 }, () => randomUUID());
      const file = [
        ...ids.map((id) => JSON.stringify({ id, ...aLocationBody({ status: 'PLANNED' }) })),
        ...ids.map((id) => JSON.stringify({ id, ...aLocationBody({ status: 'ACTIVE' }) })),
      ].join('\n');
      const token = await observer.issuer.token({ scopes: ['locations:write'] });
      const imported = await fetch(`${baseUrl}/operator/imports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
        body: file,
      });
      expect(await imported.json()).toMatchObject({ created: 1_000, updated: 1_000, rejected: 0 });
      const store = await storeOf(observer);
      expect(store.events).toHaveLength(2_000);

      await lock.release();
      await waitFor('the relay to be half-way', async () => (await store.unpublished()) < 1_500, 60_000);
      first.process.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      const left = await store.unpublished();
      expect(left).toBeGreaterThan(0);

      await startService();
      await waitFor('the restarted service to drain the log', async () => (await store.unpublished()) === 0, 60_000);
      // 2,000 messages can arrive before every event has: the batches published again after the kill repeat some.
      await observer.events.waitFor(2_000, ids, 60_000);
      await drained(() => observer.events.received);
      expectEveryEventOnceInOrder(observer.events.of(...ids), store.events);
    } finally {
      await lock.release().catch(() => undefined);
      await observer.close();
    }
  }, 300_000);

  it('publishes every event exactly once and each key in order when two relays (two replicas) run side by side', async () => {
    const schema = `lc_it_crash_${uniqueSuffix()}`;
    const lock = await holdRelayLock(schema);
    const service = await startLocationCommand({ DATABASE_SCHEMA: schema });
    try {
      const ids = Array.from({ length: 10 }, () => randomUUID());
      await Promise.all(
        ids.map(async (id) => {
          await service.request('PUT', `/operator/locations/${id}`, { body: aLocationBody({ status: 'PLANNED' }) });
          for (const notes of ['a', 'b', 'c', 'd', 'e']) {
            await service.request('PATCH', `/operator/locations/${id}`, { body: { notes } });
          }
        }),
      );
      await service.stopApp();
      const store = await storeOf(service);
      expect(store.events).toHaveLength(60);

      const relayEnv = { ...process.env, DATABASE_SCHEMA: schema, KAFKA_BROKERS: brokers, RELAY_BATCH_SIZE: '7' };
      const relayFile = join(__dirname, '..', 'support', 'relay-process.ts');
      const relays = [spawnTs(relayFile, relayEnv), spawnTs(relayFile, relayEnv)];
      children.push(...relays);
      await waitFor('both relays to start', () =>
        Promise.resolve(relays.every((relay) => relay.output().includes('relay started'))),
      );
      await lock.release();
      await waitFor('the relays to drain the log', async () => (await store.unpublished()) === 0, 90_000);
      for (const relay of relays) relay.process.kill('SIGTERM');
      await Promise.all(relays.map((relay) => relay.exited));

      await service.events.waitFor(60, ids);
      await drained(() => service.events.received);
      const received = service.events.of(...ids);
      const { duplicates } = expectEveryEventOnceInOrder(received, store.events);
      expect(duplicates).toBe(0);
    } finally {
      await lock.release().catch(() => undefined);
      await service.close();
    }
  }, 300_000);
});
