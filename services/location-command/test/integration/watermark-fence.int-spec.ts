import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { validate, WATERMARK_FENCE, watermarkReplySchema } from '@lx/contracts';
import { Clock } from '@lx/platform';
import { requireEnv, waitFor } from '@lx/testing';
import { LOCK_SHARED_FOR_WRITE } from '../../src/event-store/watermark-fence';
import {
  aLocationBody,
  type LocationCommandHarness,
  type Reply,
  startLocationCommand,
} from '../support/location-command-harness';

const MILLISECOND_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** How long a fence that must be waiting is given to (wrongly) return. */
const STILL_WAITING_MS = 600;

/**
 * A gate a statement of the service waits at, row by row, until the test opens it: a trigger `timing` `event` on
 * `table` that, for rows whose `column` is `key`, sleeps until the gate table has a row (at most 30 s, so a failed
 * test never leaves a connection stuck). `held()` tells whether a statement is waiting at it.
 */
async function gate(db: Client, options: { table: string; event: string; column: string; key: string }) {
  const name = `gate_${randomUUID().replace(/-/g, '')}`;
  await db.query(`CREATE TABLE ${name}_open (opened boolean)`);
  await db.query(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.${options.column}::text = '${options.key}' THEN
        FOR i IN 1..3000 LOOP
          EXIT WHEN EXISTS (SELECT 1 FROM ${name}_open);
          PERFORM pg_sleep(0.01);
        END LOOP;
      END IF;
      RETURN NEW;
    END $$`);
  await db.query(
    `CREATE TRIGGER ${name} BEFORE ${options.event} ON ${options.table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  );
  return {
    /** Whether a statement of `statement`'s text is waiting at a gate now. */
    async held(statement: string): Promise<boolean> {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event = 'PgSleep' AND query LIKE $1`,
        [`%${statement}%`],
      );
      return rows[0]!.n > 0;
    },
    async open(): Promise<void> {
      await db.query(`INSERT INTO ${name}_open VALUES (true)`);
    },
    async remove(): Promise<void> {
      await db.query(`INSERT INTO ${name}_open VALUES (true)`).catch(() => undefined);
      await db.query(`DROP TRIGGER IF EXISTS ${name} ON ${options.table}`);
      await db.query(`DROP FUNCTION IF EXISTS ${name}()`);
      await db.query(`DROP TABLE IF EXISTS ${name}_open`);
    },
  };
}

/** A request in flight, and whether it has answered yet. */
function inFlight(request: Promise<Reply>) {
  const state = { answered: false };
  const reply = request.finally(() => {
    state.answered = true;
  });
  return { reply, state };
}

/** The watermark fence of location-command, against real Postgres and Kafka (the relay publishes for real). */
describe(`POST ${WATERMARK_FENCE.path}`, () => {
  let service: LocationCommandHarness;
  let readToken: string;

  beforeAll(async () => {
    service = await startLocationCommand();
    readToken = await service.issuer.token({ scopes: ['locations:read'] });
  }, 60_000);

  afterAll(() => service?.close());

  afterEach(() => jest.restoreAllMocks());

  const fence = () => service.request('POST', WATERMARK_FENCE.path, { token: readToken });
  const put = (id: string) => service.request('PUT', `/operator/locations/${id}`, { body: aLocationBody() });
  const storedFence = async () =>
    (await service.db.query<{ fenced_at: Date }>('SELECT fenced_at FROM watermark_fence')).rows[0]!.fenced_at;

  it('answers 200 with the watermark as a UTC date-time to the millisecond, the fence it stored', async () => {
    const before = Date.now();
    const reply = await fence();

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ watermark: expect.stringMatching(MILLISECOND_ISO) });
    expect(validate(watermarkReplySchema, reply.body).ok).toBe(true);
    expect(Date.parse(reply.body.watermark)).toBeGreaterThanOrEqual(before);
    expect((await storedFence()).toISOString()).toBe(reply.body.watermark);
  });

  it('answers 401 without a token and 403 FORBIDDEN to a token without locations:read', async () => {
    expect((await service.request('POST', WATERMARK_FENCE.path, { token: null })).status).toBe(401);
    const writeOnly = await service.request('POST', WATERMARK_FENCE.path);
    expect(writeOnly.status).toBe(403);
    expect(writeOnly.body.error.code).toBe('FORBIDDEN');
  });

  it('never moves back, even when the clock does', async () => {
    const first = await fence();
    jest.spyOn(service.app.get(Clock), 'now').mockReturnValue(new Date(Date.parse(first.body.watermark) - 60_000));

    const second = await fence();

    expect(second.body.watermark).toBe(first.body.watermark);
  });

  it('waits for a write transaction in flight, and that write is below the watermark and published', async () => {
    const id = randomUUID();
    // The write holds its transaction open at its events insert: after its shared fence lock and its fence check.
    const held = await gate(service.db, { table: 'events', event: 'INSERT', column: 'stream_id', key: id });
    try {
      const write = inFlight(put(id));
      await waitFor('the write to be held', () => held.held('INSERT INTO events'), 10_000);

      const fencing = inFlight(fence());
      await sleep(STILL_WAITING_MS);
      expect(fencing.state.answered).toBe(false);
      expect(write.state.answered).toBe(false);

      await held.open();
      const fenced = await fencing.reply;
      const written = await write.reply;
      expect(written.status).toBe(201);
      expect(fenced.status).toBe(200);
      expect(Date.parse(written.body.updatedAt)).toBeLessThanOrEqual(Date.parse(fenced.body.watermark));
      const { rows } = await service.db.query('SELECT published_at FROM outbox WHERE message_key = $1', [id]);
      expect(rows).toEqual([{ published_at: expect.any(Date) }]);
    } finally {
      await held.remove();
    }
  });

  it('answers only once the relay has published every outbox row up to the fence', async () => {
    const id = randomUUID();
    // The relay sends the write's event to Kafka, then waits at the gate while marking it published.
    const marking = await gate(service.db, { table: 'outbox', event: 'UPDATE', column: 'message_key', key: id });
    try {
      expect((await put(id)).status).toBe(201);
      await waitFor('the relay to be held', () => marking.held('UPDATE outbox SET published_at'), 10_000);

      const fencing = inFlight(fence());
      await sleep(STILL_WAITING_MS);
      expect(fencing.state.answered).toBe(false);

      await marking.open();
      expect((await fencing.reply).status).toBe(200);
      const { rows } = await service.db.query('SELECT published_at FROM outbox WHERE message_key = $1', [id]);
      expect(rows).toEqual([{ published_at: expect.any(Date) }]);
    } finally {
      await marking.remove();
    }
  });

  it('retries a write timed at the fence with a later time, so its updatedAt is after the watermark', async () => {
    const watermark = (await fence()).body.watermark as string;
    const id = randomUUID();
    // The write reads the clock in the same millisecond as the fence did: the usual case right after a fence.
    const now = jest.spyOn(service.app.get(Clock), 'now').mockReturnValueOnce(new Date(watermark));

    const reply = await put(id);

    expect(reply.status).toBe(201);
    expect(now.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(Date.parse(reply.body.updatedAt)).toBeGreaterThan(Date.parse(watermark));
    const { rows } = await service.db.query<{ recorded_at: Date }>(
      'SELECT recorded_at FROM events WHERE stream_id = $1',
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.recorded_at.getTime()).toBeGreaterThan(Date.parse(watermark));
  });

  it('decides an import batch timed at or before the fence again, with a time after it', async () => {
    const watermark = (await fence()).body.watermark as string;
    const id = randomUUID();
    // The batch is prepared (and timed) before the fence, and commits after it.
    const now = jest.spyOn(service.app.get(Clock), 'now').mockReturnValueOnce(new Date(Date.parse(watermark) - 5_000));

    const reply = await service.request('POST', '/operator/imports', {
      payload: JSON.stringify({ id, ...aLocationBody() }),
      contentType: 'application/x-ndjson',
    });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ created: 1, rejected: 0 });
    expect(now.mock.calls.length).toBeGreaterThanOrEqual(2);
    const location = await service.request('GET', `/operator/locations/${id}`);
    expect(Date.parse(location.body.updatedAt)).toBeGreaterThan(Date.parse(watermark));
    expect(await service.storedEvents(id)).toHaveLength(1);
  });
});

describe(`POST ${WATERMARK_FENCE.path} when it cannot finish in time`, () => {
  let service: LocationCommandHarness;
  let readToken: string;

  beforeAll(async () => {
    service = await startLocationCommand({ WATERMARK_LOCK_TIMEOUT_MS: '300', WATERMARK_PUBLISH_TIMEOUT_MS: '500' });
    readToken = await service.issuer.token({ scopes: ['locations:read'] });
  }, 60_000);

  afterAll(() => service?.close());

  const fence = () => service.request('POST', WATERMARK_FENCE.path, { token: readToken });

  it('answers 503 SERVICE_UNAVAILABLE when writes in flight hold the fence lock too long, and moves no fence', async () => {
    const before = await fence();
    const writer = new Client({ connectionString: requireEnv('DATABASE_URL') });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(LOCK_SHARED_FOR_WRITE, [`watermark-fence:${service.schema}`]);

      const reply = await fence();

      expect(reply.status).toBe(503);
      expect(reply.body.error).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'the watermark fence waited 300 ms for writes in flight; retry later',
        details: { step: 'writes', timeoutMs: 300 },
      });
    } finally {
      await writer.query('ROLLBACK');
      await writer.end();
    }
    const { rows } = await service.db.query<{ fenced_at: Date }>('SELECT fenced_at FROM watermark_fence');
    expect(rows[0]!.fenced_at.toISOString()).toBe(before.body.watermark);
    expect((await fence()).status).toBe(200);
  });

  it('answers 503 SERVICE_UNAVAILABLE when the relay does not publish up to the fence in time', async () => {
    const id = randomUUID();
    const marking = await gate(service.db, { table: 'outbox', event: 'UPDATE', column: 'message_key', key: id });
    try {
      await service.request('PUT', `/operator/locations/${id}`, { body: aLocationBody() });
      await waitFor('the relay to be held', () => marking.held('UPDATE outbox SET published_at'), 10_000);

      const reply = await fence();

      expect(reply.status).toBe(503);
      expect(reply.body.error).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'the outbox was not published up to the watermark fence within 500 ms; retry later',
        details: { step: 'publication', timeoutMs: 500 },
      });
    } finally {
      await marking.remove();
    }
    await waitFor('the relay to go on', async () => (await fence()).status === 200, 10_000);
  });
});
