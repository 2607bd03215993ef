import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { MetricsRegistry } from '../../src/metrics/metrics';
import { ReadCapacityError, ReadPool } from '../../src/database/read-pool';

/**
 * Long enough that a loaded machine's scheduling (measured: a cancellation answered 219 ms after an 800 ms deadline
 * while the integration suite ran two workers) stays well inside the margins of the deadline test below.
 */
const STATEMENT_TIMEOUT_MS = 1_500;
const QUEUE_TIMEOUT_MS = 300;
// From .infra/env (jest.integration.config.js): libs/testing depends on this library, so not its requireEnv.
const DATABASE_URL = process.env['DATABASE_URL'] ?? '';

/**
 * ReadPool against real Postgres: one deadline for all statements of a scan, connections kept (not reconnected) after
 * a cancelled statement, a snapshot shared by a scan's statements, reads by id served while every scan slot is taken,
 * and totals estimated past the exact count with the filter's values bound.
 */
describe('ReadPool', () => {
  const schema = `read_pool_${randomBytes(4).toString('hex')}`;
  let admin: Client;
  let metrics: MetricsRegistry;
  let reads: ReadPool;

  beforeAll(async () => {
    expect(DATABASE_URL).not.toBe('');
    admin = new Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`SET search_path = ${schema}`);
    await admin.query('CREATE TABLE items (id uuid PRIMARY KEY, kind text NOT NULL)');
    // 12,000 of kind 'a' and 100 of kind 'b'.
    await admin.query(
      `INSERT INTO items SELECT gen_random_uuid(), CASE WHEN n <= 12000 THEN 'a' ELSE 'b' END FROM generate_series(1, 12100) AS n`,
    );
    await admin.query('ANALYZE items');
    metrics = new MetricsRegistry();
    reads = new ReadPool(
      {
        database: { url: DATABASE_URL, schema },
        read: {
          poolSize: 3,
          statementTimeoutMs: STATEMENT_TIMEOUT_MS,
          scanConcurrency: 1,
          queueTimeoutMs: QUEUE_TIMEOUT_MS,
        },
      },
      metrics,
    );
  });

  afterAll(async () => {
    await reads?.beforeApplicationShutdown();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  /** The backend of each pool connection: as many statements at once as the pool has connections. */
  const backends = async () =>
    new Set(
      await Promise.all(
        [1, 2, 3].map(
          async () =>
            (await reads.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')).rows[0]!.pid,
        ),
      ),
    );
  const refusals = async (reason: string) =>
    (await metrics.registry.getSingleMetric('db_read_refused_total')!.get()).values.find(
      (value) => value.labels.reason === reason,
    )?.value ?? 0;

  it.each([false, true])(
    'gives all statements of one scan (snapshot: %p) one deadline: the second of two 70 % statements is cancelled',
    async (snapshot) => {
      const before = await refusals('statementTimeout');
      const started = Date.now();
      const share = 0.7;
      const sleep = `SELECT pg_sleep(${(STATEMENT_TIMEOUT_MS * share) / 1000})`;
      const scanned = reads.scan(
        async (session) => {
          await session.query(sleep);
          await session.query(sleep);
        },
        { snapshot },
      );
      await expect(scanned).rejects.toBeInstanceOf(ReadCapacityError);
      await expect(scanned).rejects.toMatchObject({ details: { reason: 'statementTimeout' } });
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
      // Cancelled at the deadline, not when the second statement would have ended by itself.
      expect(took).toBeLessThan(STATEMENT_TIMEOUT_MS * share * 2);
      expect(await refusals('statementTimeout')).toBe(before + 1);
      // Each statement alone is within the timeout: the same two as separate reads both succeed.
      await reads.query(sleep);
      await reads.query(sleep);
    },
  );

  it('keeps the connection of a cancelled statement: the pool does not reconnect after timeouts', async () => {
    const before = await backends();
    expect(before.size).toBe(3);
    const tooLong = `SELECT pg_sleep(${(STATEMENT_TIMEOUT_MS * 2) / 1000})`;
    await Promise.all(
      [1, 2, 3].map(() =>
        expect(reads.query(tooLong)).rejects.toMatchObject({ details: { reason: 'statementTimeout' } }),
      ),
    );
    await expect(
      reads.scan(async (session) => {
        await session.query('SELECT 1');
        await session.query(tooLong);
      }),
    ).rejects.toMatchObject({ details: { reason: 'statementTimeout' } });
    expect(await backends()).toEqual(before);
    // None is left inside the transaction the cancelled scan had opened.
    const { rows } = await admin.query<{ state: string }>(
      'SELECT state FROM pg_stat_activity WHERE pid = ANY($1::int[])',
      [[...before]],
    );
    expect(rows.map((row) => row.state)).toEqual(['idle', 'idle', 'idle']);
  });

  it('answers every statement of a scan after a failed one with that first failure, and rolls back', async () => {
    const codes: unknown[] = [];
    await expect(
      reads.scan(async (session) => {
        await session.query('SELECT 1');
        await session.query('SELECT 1 / 0').catch((error: { code?: string }) => codes.push(error.code));
        await session.query('SELECT 2');
      }),
    ).rejects.toMatchObject({ code: '22012' });
    // The division by zero (22012), not "current transaction is aborted" (25P02) from the statement after it.
    expect(codes).toEqual(['22012']);
    expect((await reads.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('reads a scan with snapshot in one snapshot: a row committed between its statements is not seen', async () => {
    const counts = await reads.scan(
      async (session) => {
        const before = (await session.query<{ n: number }>(`SELECT count(*)::int AS n FROM items WHERE kind = 'b'`))
          .rows[0]!.n;
        await admin.query(`INSERT INTO items VALUES ('00000000-0000-4000-8000-000000000000', 'b')`);
        const after = (await session.query<{ n: number }>(`SELECT count(*)::int AS n FROM items WHERE kind = 'b'`))
          .rows[0]!.n;
        return { before, after };
      },
      { snapshot: true },
    );
    expect(counts.after).toBe(counts.before);
    expect((await reads.query(`SELECT 1 FROM items WHERE kind = 'b'`)).rowCount).toBe(counts.before + 1);
    await admin.query(`DELETE FROM items WHERE id = '00000000-0000-4000-8000-000000000000'`);
  });

  it('serves reads by id while every scan slot is taken, and refuses the next scan busy', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = reads.scan(async (session) => {
      await session.query('SELECT 1');
      await held;
    });
    const started = Date.now();
    for (let i = 0; i < 5; i += 1) expect((await reads.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(Date.now() - started).toBeLessThan(QUEUE_TIMEOUT_MS);
    await expect(reads.scan((session) => session.query('SELECT 1'))).rejects.toMatchObject({
      details: { reason: 'busy', waitedMs: QUEUE_TIMEOUT_MS },
    });
    release();
    await holding;
  });

  it('estimates a filtered total past the exact count with the filter bound, and counts a small one exactly', async () => {
    const many = await reads.page({
      columns: 'id',
      table: 'items',
      conditions: ['kind = $1'],
      values: ['a'],
      page: { limit: 5, offset: 0 },
    });
    expect(many.rows).toHaveLength(5);
    expect(many.totalEstimated).toBe(true);
    expect(Math.abs(many.total - 12_000)).toBeLessThanOrEqual(600);
    expect(many.next).toBe(many.rows[4]!.id);

    const few = await reads.page({
      columns: 'id',
      table: 'items',
      conditions: ['kind = $1'],
      values: ['b'],
      page: { limit: 500, offset: 0 },
    });
    expect(few).toMatchObject({ total: 100, totalEstimated: false });
    expect(few.rows).toHaveLength(100);
    expect(few.next).toBeUndefined();
  });
});
