import { randomUUID } from 'node:crypto';
import { waitFor } from '@lx/testing';
import { aLocationBody, type LocationCommandHarness, startLocationCommand } from '../support/location-command-harness';

/** The event store, its outbox and the relay to Kafka, on real Postgres and Kafka. */
describe('event store and relay', () => {
  let service: LocationCommandHarness;

  beforeAll(async () => {
    service = await startLocationCommand();
  }, 60_000);

  afterAll(() => service?.close());

  const put = (id: string, body: unknown) => service.request('PUT', `/operator/locations/${id}`, { body });
  const patch = (id: string, body: unknown) => service.request('PATCH', `/operator/locations/${id}`, { body });

  it('commits the events, the aggregate state and the outbox message of a write together, in one global order', async () => {
    const id = randomUUID();
    await put(id, aLocationBody());
    await patch(id, { notes: 'second' });
    await patch(id, { notes: 'third' });

    const { rows: events } = await service.db.query(
      `SELECT global_position, stream_version, event_id, event_type, payload::text AS payload
         FROM events WHERE stream_id = $1 ORDER BY global_position`,
      [id],
    );
    expect(events.map((event) => [event.stream_version, event.event_type])).toEqual([
      [1, 'LOCATION_CREATED'],
      [2, 'LOCATION_UPDATED'],
      [3, 'LOCATION_UPDATED'],
    ]);
    const { rows: outbox } = await service.db.query(
      `SELECT position, topic, value, headers FROM outbox WHERE message_key = $1 ORDER BY position`,
      [id],
    );
    expect(outbox.map((row) => JSON.parse(row.value))).toEqual(events.map((event) => JSON.parse(event.payload)));
    expect(outbox.map((row) => row.headers['lx-aggregate-version'])).toEqual(['1', '2', '3']);
    expect(outbox.every((row) => row.topic === 'location.events.v1')).toBe(true);
    expect(events.map((event) => JSON.parse(event.payload).id)).toEqual(events.map((event) => event.event_id));

    const { rows: state } = await service.db.query(
      `SELECT version, deleted, serviceability_status FROM aggregate_state WHERE stream_id = $1`,
      [id],
    );
    expect(state).toEqual([{ version: 3, deleted: false, serviceability_status: null }]);
    const current = await service.request('GET', `/operator/locations/${id}`);
    expect(current.body).toEqual(JSON.parse(events[2]!.payload).data);
  });

  it('leaves no event, state or outbox row behind when any part of the write fails', async () => {
    const id = randomUUID();
    await service.db.query(`
      CREATE FUNCTION fail_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.message_key = '${id}' THEN RAISE EXCEPTION 'outbox unavailable'; END IF;
        RETURN NEW;
      END $$`);
    await service.db.query(
      `CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION fail_outbox()`,
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
      await service.db.query(`DROP TRIGGER fail_outbox ON outbox; DROP FUNCTION fail_outbox()`);
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

    const messages = await service.events.waitFor(ids.length * (updates + 1), ids, 60_000);
    expect(messages).toHaveLength(ids.length * (updates + 1));
    for (const id of ids) {
      const own = messages.filter((message) => message.key === id);
      expect(own.map((message) => message.version)).toEqual(Array.from({ length: updates + 1 }, (_, i) => i + 1));
      expect(own.map((message) => message.event.data.notes ?? null)).toEqual([
        null,
        ...Array.from({ length: updates }, (_, i) => `update ${i + 1}`),
      ]);
      expect(new Set(own.map((message) => message.partition)).size).toBe(1);
    }
    await waitFor(
      'every outbox row marked published',
      async () => (await service.db.query('SELECT 1 FROM outbox WHERE published_at IS NULL')).rowCount === 0,
    );
  });

  it('exposes the relay lag and throughput as Prometheus metrics', async () => {
    const metrics = await service.app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(/^outbox_oldest_unpublished_age_seconds \d/m);
    expect(metrics.body).toMatch(/^outbox_published_total \d+/m);
    expect(metrics.body).toContain('outbox_publish_delay_seconds_bucket');
  });
});
