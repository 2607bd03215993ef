import { randomUUID } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { Client } from 'pg';
import { RelayThread } from '@lx/messaging';
import { requireEnv, waitFor } from '@lx/testing';
import { aLocationBody, type LocationCommandHarness, startLocationCommand } from '../support/location-command-harness';

/** The relay of the event log in its worker thread (RELAY_THREAD=worker, the default), on real Postgres and Kafka. */
describe('the relay in its worker thread', () => {
  let service: LocationCommandHarness;

  beforeAll(async () => {
    service = await startLocationCommand();
  }, 60_000);

  afterAll(() => service?.close());

  const put = (id: string, body: unknown) => service.request('PUT', `/operator/locations/${id}`, { body });
  const metrics = async () =>
    (await service.app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' })).body;
  const publishedTotal = async () => Number(/^outbox_published_total (\d+)$/m.exec(await metrics())?.[1] ?? NaN);

  it('publishes the writes from the worker, each location in version order, and serves its metrics on /metrics', async () => {
    expect(service.app.get(RelayThread)).toBeInstanceOf(RelayThread);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) expect((await put(id, aLocationBody())).status).toBe(201);
    for (const id of ids) expect((await put(id, aLocationBody({ notes: 'second' }))).status).toBe(200);

    const received = await service.events.waitFor(6, ids);

    for (const id of ids) {
      expect(received.filter((message) => message.key === id).map((message) => message.version)).toEqual([1, 2]);
    }
    await waitFor('the worker to count what it published', async () => (await publishedTotal()) >= 6);
    const text = await metrics();
    expect(text).toMatch(/^outbox_oldest_unpublished_age_seconds \d/m);
    expect(text).toContain('outbox_publish_delay_seconds_bucket');
    expect(text.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
  });

  const workerOf = (service: LocationCommandHarness) => {
    const thread: unknown = service.app.get(RelayThread);
    return (thread as { worker: Worker }).worker;
  };

  it('starts a worker that died again, and it publishes what was committed meanwhile', async () => {
    // What a crash of the thread looks like to the service: its worker exits with code 1.
    await workerOf(service).terminate();
    const id = randomUUID();

    expect((await put(id, aLocationBody())).status).toBe(201);

    const [message] = await service.events.waitFor(1, [id], 30_000);
    expect(message!.version).toBe(1);
    const text = await metrics();
    expect(text).toMatch(/^relay_thread_restarts_total 1$/m);
    expect(text).toMatch(/^relay_thread_up 1$/m);
  });

  it('stops the worker with the service: it ends its round and exits 0, and its leader lock is free', async () => {
    const worker = workerOf(service);
    const exitCode = new Promise<number>((resolve) => worker.once('exit', resolve));

    await service.stopApp();

    expect(await exitCode).toBe(0);
    const client = new Client({ connectionString: requireEnv('DATABASE_URL') });
    await client.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
        `event-log-relay:${service.schema}`,
      ]);
      expect(rows[0]!.locked).toBe(true);
    } finally {
      await client.end();
    }
  });
});
