import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { validate, WATERMARK_FENCE, watermarkReplySchema } from '@lx/contracts';
import { Clock } from '@lx/platform';
import { requireEnv, waitFor } from '@lx/testing';
import { gate, gateAfterFenceCheck } from '../support/gate';
import {
  aLocationBody,
  type LocationCommandHarness,
  type Reply,
  startLocationCommand,
} from '../support/location-command-harness';

const MILLISECOND_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** How long a fence that must be waiting is given to (wrongly) return. */
const STILL_WAITING_MS = 600;

/** A request in flight, and whether it has answered yet. */
function inFlight(request: Promise<Reply>) {
  const state = { answered: false };
  const reply = request.finally(() => {
    state.answered = true;
  });
  return { reply, state };
}

/** Whether the relay's checkpoint has passed every event of the stream. */
async function published(db: Client, streamId: string): Promise<boolean> {
  const { rows } = await db.query<{ behind: boolean }>(
    `SELECT bool_and((e.tx_id, e.global_position) <= (c.tx_id, c.position)) AS behind
       FROM events e, relay_checkpoint c WHERE e.stream_id = $1`,
    [streamId],
  );
  return rows[0]!.behind === true;
}

/**
 * Holds the relay after it sent a batch to Kafka and before it moves its checkpoint: a table lock (which draws no
 * transaction id, so the fence's wait for the transactions in flight does not see it) that its UPDATE waits for.
 */
async function holdCheckpoint(schema: string): Promise<{ held(): Promise<boolean>; release(): Promise<void> }> {
  const client = new Client({ connectionString: requireEnv('DATABASE_URL') });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${schema}.relay_checkpoint IN EXCLUSIVE MODE`);
  let released: Promise<void> | undefined;
  return {
    async held() {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE relation = '${schema}.relay_checkpoint'::regclass AND NOT granted`,
      );
      return rows[0]!.n > 0;
    },
    release: () => (released ??= client.end()),
  };
}

/** The watermark fence of location-command, against real Postgres and Kafka (the relay publishes for real). */
describe(`POST ${WATERMARK_FENCE.path}`, () => {
  let service: LocationCommandHarness;
  let internalToken: string;

  beforeAll(async () => {
    service = await startLocationCommand();
    internalToken = await service.issuer.token({ scopes: ['locations:internal'] });
  }, 60_000);

  afterAll(() => service?.close());

  afterEach(() => jest.restoreAllMocks());

  const fence = () => service.request('POST', WATERMARK_FENCE.path, { token: internalToken });
  const put = (id: string) => service.request('PUT', `/operator/locations/${id}`, { body: aLocationBody() });
  /** The write succeeded at or before the watermark the fence answered, and the relay has published it. */
  const expectBelowWatermarkAndPublished = async (id: string, written: Reply, fenced: Reply) => {
    expect(written.status).toBe(201);
    expect(fenced.status).toBe(200);
    expect(Date.parse(written.body.updatedAt)).toBeLessThanOrEqual(Date.parse(fenced.body.watermark));
    expect(await published(service.db, id)).toBe(true);
  };
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

  it("answers 401 without a token and 403 FORBIDDEN to a token without locations:internal: the operator's, an RSP's", async () => {
    expect((await service.request('POST', WATERMARK_FENCE.path, { token: null })).status).toBe(401);
    const writeOnly = await service.request('POST', WATERMARK_FENCE.path);
    expect(writeOnly.status).toBe(403);
    expect(writeOnly.body.error.code).toBe('FORBIDDEN');
    const rsp = await service.issuer.token({ scopes: ['locations:read'] });
    const forbidden = await service.request('POST', WATERMARK_FENCE.path, { token: rsp });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.details).toEqual({ requiredScope: 'locations:internal' });
  });

  it('never moves back, even when the clock does', async () => {
    const first = await fence();
    jest.spyOn(service.app.get(Clock), 'now').mockReturnValue(new Date(Date.parse(first.body.watermark) - 60_000));

    const second = await fence();

    expect(second.body.watermark).toBe(first.body.watermark);
  });

  it('waits for a write in flight that passed its fence check, and that write is below the watermark and published', async () => {
    const id = randomUUID();
    // The write has appended its event, checked against the fence, and holds its transaction open after that check.
    const held = await gateAfterFenceCheck(service.db, id);
    try {
      const write = inFlight(put(id));
      await waitFor('the write to be held', () => held.held(), 10_000);

      const fencing = inFlight(fence());
      await sleep(STILL_WAITING_MS);
      expect(fencing.state.answered).toBe(false);
      expect(write.state.answered).toBe(false);

      await held.open();
      await expectBelowWatermarkAndPublished(id, await write.reply, await fencing.reply);
    } finally {
      await held.remove();
    }
  });

  it('waits for a write timed before the fence that drew its transaction id after the fence did', async () => {
    const id = randomUUID();
    // A fence first, so the stored one is a time (the schema starts at -infinity). With the fence's X read as one past
    // the latest completed transaction instead of drawn, this fails unless another transaction of the cluster with a
    // higher id happens to complete in between (parallel test files may).
    await fence();
    const previous = await storedFence();
    // The fence has read the clock and written W (its transaction has its id); it waits before its commit.
    const fenceCommit = await gate(service.db, {
      table: 'watermark_fence',
      event: 'UPDATE',
      column: 'singleton',
      key: 'true',
      after: 'row',
    });
    // The write, once it has appended and passed its fence check, waits with its transaction open.
    const afterCheck = await gateAfterFenceCheck(service.db, id);
    try {
      const fencing = inFlight(fence());
      await waitFor('the fence to be held before its commit', () => fenceCommit.held(), 10_000);
      // The write was timed before the fence read the clock (after the previous fence), and draws its transaction id
      // only now, above the fence's; W is not committed, so its check lets it through.
      jest.spyOn(service.app.get(Clock), 'now').mockReturnValue(new Date(previous.getTime() + 1));
      const write = inFlight(put(id));
      await waitFor('the write to be held after its fence check', () => afterCheck.held(), 10_000);

      await fenceCommit.open();
      await sleep(STILL_WAITING_MS);
      expect(fencing.state.answered).toBe(false);

      await afterCheck.open();
      await expectBelowWatermarkAndPublished(id, await write.reply, await fencing.reply);
    } finally {
      await afterCheck.remove();
      await fenceCommit.remove();
    }
  });

  it('refuses to move the fence other than through move_watermark_fence (a fence of the previous version fails)', async () => {
    await expect(service.db.query(`UPDATE watermark_fence SET fenced_at = now()`)).rejects.toThrow(
      /moved by move_watermark_fence\(\) only/,
    );
  });

  it('lets a write that checks the fence after it commit only with a time after the watermark', async () => {
    const id = randomUUID();
    // The write is held before its event is appended, so its fence check comes after the fence is stored.
    const held = await gate(service.db, { table: 'events', event: 'INSERT', column: 'stream_id', key: id });
    try {
      const write = inFlight(put(id));
      await waitFor('the write to be held', () => held.held(), 10_000);
      const stored = await storedFence();

      // The fence may wait for the write (when its transaction already has an id), so the write goes on once the
      // fence is stored.
      const fencing = inFlight(fence());
      await waitFor('the fence to be stored', async () => (await storedFence()).getTime() > stored.getTime(), 10_000);
      await held.open();

      const written = await write.reply;
      const fenced = await fencing.reply;
      expect(written.status).toBe(201);
      expect(fenced.status).toBe(200);
      expect(Date.parse(written.body.updatedAt)).toBeGreaterThan(Date.parse(fenced.body.watermark));
      expect(await service.storedEvents(id)).toHaveLength(1);
    } finally {
      await held.remove();
    }
  });

  it('answers only once the relay has published every event up to the fence', async () => {
    const id = randomUUID();
    // The relay sends the write's event to Kafka, then waits for the table lock to move its checkpoint.
    const checkpoint = await holdCheckpoint(service.schema);
    try {
      expect((await put(id)).status).toBe(201);
      await waitFor('the relay to be held', () => checkpoint.held(), 10_000);

      const fencing = inFlight(fence());
      await sleep(STILL_WAITING_MS);
      expect(fencing.state.answered).toBe(false);

      await checkpoint.release();
      expect((await fencing.reply).status).toBe(200);
      expect(await published(service.db, id)).toBe(true);
    } finally {
      await checkpoint.release();
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
  let internalToken: string;

  beforeAll(async () => {
    service = await startLocationCommand({ WATERMARK_LOCK_TIMEOUT_MS: '300', WATERMARK_PUBLISH_TIMEOUT_MS: '500' });
    internalToken = await service.issuer.token({ scopes: ['locations:internal'] });
  }, 60_000);

  afterAll(() => service?.close());

  const fence = () => service.request('POST', WATERMARK_FENCE.path, { token: internalToken });

  it('answers 503 SERVICE_UNAVAILABLE when a transaction in flight does not end in time', async () => {
    const before = await fence();
    const writer = new Client({ connectionString: requireEnv('DATABASE_URL') });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('SELECT pg_current_xact_id()');

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
    // The fence stored before the wait stays (writes after it are timed after it anyway); no watermark was handed out.
    const { rows } = await service.db.query<{ fenced_at: Date }>('SELECT fenced_at FROM watermark_fence');
    expect(rows[0]!.fenced_at.getTime()).toBeGreaterThanOrEqual(Date.parse(before.body.watermark));
    // Other tests share the database: a transaction of theirs may be in flight too, so the next fence is given time.
    await waitFor('a fence to succeed again', async () => (await fence()).status === 200, 10_000);
  });

  it('answers 503 SERVICE_UNAVAILABLE when the relay does not publish up to the fence in time', async () => {
    const id = randomUUID();
    const checkpoint = await holdCheckpoint(service.schema);
    try {
      await service.request('PUT', `/operator/locations/${id}`, { body: aLocationBody() });
      await waitFor('the relay to be held', () => checkpoint.held(), 10_000);

      const reply = await fence();

      expect(reply.status).toBe(503);
      expect(reply.body.error).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'the event log was not published up to the watermark fence within 500 ms; retry later',
        details: { step: 'publication', timeoutMs: 500 },
      });
    } finally {
      await checkpoint.release();
    }
    await waitFor('the relay to go on', async () => (await fence()).status === 200, 10_000);
  });
});
