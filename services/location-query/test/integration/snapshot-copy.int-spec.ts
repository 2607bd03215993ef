import { Pool } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { requireEnv, waitFor } from '@lx/testing';
import { openLocationSnapshot } from '../../src/location/infrastructure/location-snapshot.stream';
import { type LocationQueryHarness, startLocationQuery } from '../support/location-query-harness';

/**
 * The snapshot's locations come from a binary COPY read off the socket only as fast as the stream is consumed: its
 * bytes are the stored text exactly, however the consumer paces it, and a stream destroyed in the middle of the COPY
 * gives its connection up rather than wait for the server to send the rest.
 */
describe('the snapshot COPY', () => {
  let service: LocationQueryHarness;
  let pool: Pool;
  const rows = 3_000;

  beforeAll(async () => {
    service = await startLocationQuery();
    pool = new Pool({
      connectionString: requireEnv('DATABASE_URL'),
      options: `-c search_path=${service.schema}`,
      max: 1,
    });
    // About 2 KB a body, 6 MB in all: several times the stream's buffer, so the socket is paused and resumed. Escapes
    // and characters outside ASCII, which COPY's text format would have rewritten.
    await service.db.query(
      `INSERT INTO locations (id, version, body, csv, updated_at)
       SELECT gen_random_uuid(), 1,
              json_build_object('n', n, 'notes', E'quote " backslash \\\\ tab \\t é ✓', 'pad', repeat('x', 2000)),
              n || E',"a ""b""\r\nc"\r\n', now()
         FROM generate_series(1, $1) AS n`,
      [rows],
    );
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await service?.close();
  });

  const stored = async (column: string) => {
    const { rows: texts } = await service.db.query<{ text: string }>(
      `SELECT ${column} AS text FROM locations ORDER BY id`,
    );
    return texts.map((row) => row.text).join('');
  };

  it.each([
    ['json', `body::text || E'\\n'`],
    ['csv', 'csv'],
  ] as const)('streams the stored %s text byte for byte to a slow consumer', async (format, column) => {
    const snapshot = await openLocationSnapshot(pool, {}, format, 1000);
    expect(snapshot.totalCount).toBe(rows);
    const chunks: Buffer[] = [];
    for await (const chunk of snapshot.stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      if (chunks.length % 4 === 0) await sleep(5);
    }
    expect(Buffer.concat(chunks).equals(Buffer.from(await stored(column)))).toBe(true);
  });

  it('given the stream destroyed in the middle of the COPY, then its connection goes and the pool serves on', async () => {
    const snapshot = await openLocationSnapshot(pool, {}, 'json', 1000);
    const iterator = (snapshot.stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    snapshot.stream.destroy();

    // The pool's only connection was the snapshot's: a query answers once it has been replaced.
    const { rows: answer } = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(answer).toEqual([{ one: 1 }]);
    await waitFor('no backend left in the COPY', async () => {
      const { rows: copying } = await service.db.query(
        `SELECT pid FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT%' AND query LIKE '%FROM locations%'`,
      );
      return copying.length === 0;
    });
  });
});
