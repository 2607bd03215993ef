import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { requireEnv, waitFor } from '@lx/testing';
import { AggregateStateWriter } from '../../src/event-store/aggregate-state.writer';
import { EventLog } from '../../src/event-store/event-log';
import { EventStore } from '../../src/event-store/event-store';
import { StreamOrderConflictError } from '../../src/event-store/event-store.errors';
import { gateAfterFenceCheck, unpublishedEvents } from '../support/gate';
import { aLocationBody, type LocationCommandHarness, startLocationCommand } from '../support/location-command-harness';

/** The event store, its log (which is the outbox) and the relay to Kafka, on real Postgres and Kafka. */
describe('event store and relay', () => {
  let service: LocationCommandHarness;

  beforeAll(async () => {
    // The relay in this test's thread, so a test can watch its rounds (relay-thread.int-spec.ts runs it in its worker).
    service = await startLocationCommand({ RELAY_THREAD: 'main' });
  }, 60_000);

  afterAll(() => service?.close());

  const put = (id: string, body: unknown) => service.request('PUT', `/operator/locations/${id}`, { body });
  const patch = (id: string, body: unknown) => service.request('PATCH', `/operator/locations/${id}`, { body });

  it('commits the events and the aggregate state of a write together; the relay publishes each payload as stored', async () => {
    const id = randomUUID();
    const requestId = `trace-${id}`;
    await service.request('PUT', `/operator/locations/${id}`, {
      body: aLocationBody(),
      headers: { 'x-request-id': requestId },
    });
    await patch(id, { notes: 'second' });
    await patch(id, { notes: 'third' });

    const { rows: events } = await service.db.query(
      `SELECT global_position, stream_version, event_id, event_type, payload::text AS payload, correlation_id
         FROM events WHERE stream_id = $1 ORDER BY global_position`,
      [id],
    );
    expect(events.map((event) => [event.stream_version, event.event_type])).toEqual([
      [1, 'LOCATION_CREATED'],
      [2, 'LOCATION_UPDATED'],
      [3, 'LOCATION_UPDATED'],
    ]);
    expect(events[0]!.correlation_id).toBe(requestId);
    expect(events.map((event) => JSON.parse(event.payload).id)).toEqual(events.map((event) => event.event_id));
    // One copy of each payload: nothing goes to the outbox table any more.
    expect((await service.db.query('SELECT 1 FROM outbox')).rowCount).toBe(0);

    const published = await service.events.waitFor(3, [id]);
    expect(published.map((message) => message.event)).toEqual(events.map((event) => JSON.parse(event.payload)));
    expect(published.map((message) => message.headers['lx-aggregate-version'])).toEqual(['1', '2', '3']);
    expect(published[0]!.headers['lx-correlation-id']).toBe(requestId);
    expect(published.every((message) => message.topic === 'location.events.v1')).toBe(true);

    const { rows: state } = await service.db.query(
      `SELECT version, deleted, serviceability_status FROM aggregate_state WHERE stream_id = $1`,
      [id],
    );
    expect(state).toEqual([{ version: 3, deleted: false, serviceability_status: null }]);
    const current = await service.request('GET', `/operator/locations/${id}`);
    expect(current.body).toEqual(JSON.parse(events[2]!.payload).data);
  });

  it('leaves no event or state row behind when any part of the write fails', async () => {
    const id = randomUUID();
    await service.db.query(`
      CREATE FUNCTION fail_state() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.stream_id = '${id}' THEN RAISE EXCEPTION 'state unavailable'; END IF;
        RETURN NEW;
      END $$`);
    await service.db.query(
      `CREATE TRIGGER fail_state BEFORE INSERT ON aggregate_state FOR EACH ROW EXECUTE FUNCTION fail_state()`,
    );
    try {
      const reply = await put(id, aLocationBody());
      expect(reply.status).toBe(500);
      expect(reply.body.error).toEqual({
        code: 'INTERNAL_ERROR',
        message: 'Internal error',
        details: { errorId: expect.any(String) },
      });
    } finally {
      await service.db.query(`DROP TRIGGER fail_state ON aggregate_state; DROP FUNCTION fail_state()`);
    }
    expect(await service.storedEvents(id)).toEqual([]);
    expect((await service.db.query(`SELECT 1 FROM aggregate_state WHERE stream_id = $1`, [id])).rowCount).toBe(0);
    expect((await put(id, aLocationBody())).status).toBe(201);
  });

  it('keeps the event store append-only', async () => {
    const id = randomUUID();
    await put(id, aLocationBody());
    await expect(service.db.query(`UPDATE events SET event_type = 'X' WHERE stream_id = $1`, [id])).rejects.toThrow(
      /append-only/,
    );
    await expect(service.db.query(`DELETE FROM events WHERE stream_id = $1`, [id])).rejects.toThrow(/append-only/);
  });

  it('delivers every event to Kafka keyed by aggregate id, each key in version order, under concurrent writers', async () => {
    const ids = Array.from({ length: 8 }, () => randomUUID());
    const updates = 15;
    await Promise.all(
      ids.map(async (id) => {
        await put(id, aLocationBody());
        for (let n = 1; n <= updates; n += 1) await patch(id, { notes: `update ${n}` });
      }),
    );

    await waitFor('the relay to publish every event', async () => (await unpublishedEvents(service.db)) === 0);
    const messages = await service.events.waitFor(ids.length * (updates + 1), ids, 60_000);
    // Exactly once: the checkpoint passed every event before this look, and a marker write published after them
    // arrives behind them on its partition.
    const marker = ids[0]!;
    await patch(marker, { notes: 'marker' });
    await service.events.waitFor(ids.length * (updates + 1) + 1, ids, 60_000);
    expect(service.events.of(...ids)).toHaveLength(ids.length * (updates + 1) + 1);
    for (const id of ids) {
      const own = messages.filter((message) => message.key === id);
      expect(own.map((message) => message.version)).toEqual(Array.from({ length: updates + 1 }, (_, i) => i + 1));
      expect(new Set(own.map((message) => message.event.id)).size).toBe(updates + 1);
      expect(own.map((message) => message.event.data.notes ?? null)).toEqual([
        null,
        ...Array.from({ length: updates }, (_, i) => `update ${i + 1}`),
      ]);
      expect(new Set(own.map((message) => message.partition)).size).toBe(1);
    }
  });

  it('publishes a transaction that commits after a later one: the relay never skips it (no gap)', async () => {
    const [first, second] = [randomUUID(), randomUUID()];
    const relay = service.app.get(EventLog);
    const reads = jest.spyOn(relay, 'read');
    // The first write has appended its event (its transaction id and position are drawn) and waits after its fence
    // check, its transaction open.
    const held = await gateAfterFenceCheck(service.db, first);
    try {
      const firstWrite = put(first, aLocationBody());
      await waitFor('the first write to be held', () => held.held(), 10_000);
      // The second write starts later, so it draws a later transaction id and position, and commits first.
      expect((await put(second, aLocationBody())).status).toBe(201);
      // A relay round that began after that commit publishes nothing: the second event waits for the first.
      const afterCommit = reads.mock.calls.length;
      await waitFor('a relay round after the second commit', () =>
        Promise.resolve(reads.mock.results.length > afterCommit),
      );
      const round = (await reads.mock.results[afterCommit]!.value) as { messages: { key: string }[] };
      expect(round.messages.map((message) => message.key)).not.toContain(second);
      await held.open();
      expect((await firstWrite).status).toBe(201);
    } finally {
      reads.mockRestore();
      await held.remove();
    }

    const { rows } = await service.db.query<{ stream_id: string; tx: string; position: string }>(
      `SELECT stream_id, tx_id::text AS tx, global_position::text AS position FROM events
        WHERE stream_id = ANY($1::uuid[])`,
      [[first, second]],
    );
    const of = (id: string) => rows.find((row) => row.stream_id === id)!;
    expect(BigInt(of(first).tx)).toBeLessThan(BigInt(of(second).tx));
    expect(BigInt(of(first).position)).toBeLessThan(BigInt(of(second).position));

    const published = await service.events.waitFor(2, [first, second]);
    expect(published.map((message) => message.key).sort()).toEqual([first, second].sort());
    await waitFor('the relay to pass both', async () => (await unpublishedEvents(service.db)) === 0);
  });

  it('refuses events appended under REPEATABLE READ, where the fence check could not see a fence committed meanwhile', async () => {
    const client = new Client({
      connectionString: requireEnv('DATABASE_URL'),
      options: `-c search_path=${service.schema}`,
    });
    await client.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await expect(
        client.query(
          `INSERT INTO events (stream_id, stream_type, stream_version, event_id, event_type, payload, recorded_at)
           VALUES ($1, 'location', 1, $2, 'LOCATION_CREATED', '{}', now())`,
          [randomUUID(), randomUUID()],
        ),
      ).rejects.toMatchObject({ code: 'LXW03' });
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });

  it('appends in one statement only at the version decided on and while the referenced groups exist', async () => {
    const store = service.app.get(EventStore);
    const id = randomUUID();
    const groupId = randomUUID();
    expect(
      (await service.request('PUT', `/operator/location-groups/${groupId}`, { body: { name: 'G', type: 'OTHER' } }))
        .status,
    ).toBe(201);
    await put(id, aLocationBody());
    const appendAt = (fromVersion: number, notes: string) => ({
      streamId: id,
      streamType: 'location' as const,
      fromVersion,
      events: [{ type: 'LOCATION_UPDATED' as const, data: { id, notes } }],
      index: {},
    });
    const context = () => ({ timestamp: new Date().toISOString() });
    const none = { locationGroupIds: [], addressGroupIds: [] };
    const missingGroup = { locationGroupIds: [randomUUID()], addressGroupIds: [] };
    const existingGroup = { locationGroupIds: [groupId], addressGroupIds: [] };

    expect(await store.appendIfCurrent(appendAt(0, 'stale: as if new'), context(), none)).toBe(false);
    expect(await store.appendIfCurrent(appendAt(1, 'group gone'), context(), missingGroup)).toBe(false);
    expect(await service.storedEvents(id)).toHaveLength(1);
    expect(await store.appendIfCurrent(appendAt(1, 'current'), context(), existingGroup)).toBe(true);
    expect(await store.appendIfCurrent(appendAt(1, 'stale: version 1 again'), context(), none)).toBe(false);

    expect((await service.storedEvents(id)).map((event) => event.stream_version)).toEqual([1, 2]);
    const { rows } = await service.db.query('SELECT version FROM aggregate_state WHERE stream_id = $1', [id]);
    expect(rows).toEqual([{ version: 2 }]);
  });

  it('refuses to append a stream under a transaction id below that of its last writer, so the relay keeps key order', async () => {
    const id = randomUUID();
    await put(id, aLocationBody());
    const runner = service.app.get(DataSource).createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      // This transaction draws its id first (as one that wrote something else would), then another writer commits
      // version 2 of the stream, and this one, having seen it, would append version 3 under the lower id.
      await runner.query('SELECT pg_current_xact_id()');
      expect((await patch(id, { notes: 'second' })).status).toBe(200);
      const append = {
        streamId: id,
        streamType: 'location' as const,
        fromVersion: 2,
        events: [{}] as never,
        index: {},
      };

      await expect(
        new AggregateStateWriter().write(runner.manager, [append], new Date().toISOString()),
      ).rejects.toBeInstanceOf(StreamOrderConflictError);
    } finally {
      await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
    const { rows } = await service.db.query('SELECT version FROM aggregate_state WHERE stream_id = $1', [id]);
    expect(rows).toEqual([{ version: 2 }]);
  });

  it('exposes the relay lag and throughput as Prometheus metrics', async () => {
    const metrics = await service.app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(/^outbox_oldest_unpublished_age_seconds \d/m);
    expect(metrics.body).toMatch(/^outbox_published_total \d+/m);
    expect(metrics.body).toContain('outbox_publish_delay_seconds_bucket');
  });
});
