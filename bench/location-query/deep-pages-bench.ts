/**
 * GET /locations/{id} of location-query while 50 clients read deep list pages at once, beside the same reads on an idle
 * service (the baseline, measured in the same run), and beside the same load on the service with its scan bulkhead as
 * wide as its configuration allows (READ_SCAN_CONCURRENCY one below READ_POOL_SIZE: list reads may take every read
 * connection but one).
 *
 *   npm run bench:deep-pages   (BENCH_ROUNDS, default 3; BENCH_SECONDS per measurement, default 10; BENCH_ROWS,
 *                               default 1e6; BENCH_LISTERS, default 50)
 *
 * Setup (not timed): startReadModelBench (BENCH_ROWS realistic locations in a read model of the run's own), the
 * service from dist/ as in production with its rate limit off.
 * The deep pages are the deepest reads the API allows: `limit=1000` after a random id (the cursor) and
 * `limit=1000&offset=10000` (the offset cap), alternating; before the caps an RSP could ask for
 * `offset=4999000` and an exact count of the whole table. The reads by id: autocannon with 8 connections, random ids.
 * Target (issue 29): the p99 of the reads by id under the deep pages within 2× of idle.
 */
import { join } from 'node:path';
import { loadAverage, log, measure, type Measurement, type Server, startServer, table } from './bench-support';
import { LOCATION_QUERY_DIST, startReadModelBench } from './read-model-setup';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000);
const LISTERS = Number(process.env['BENCH_LISTERS'] ?? 50);
const READERS = 8;

async function main(): Promise<void> {
  const bench = await startReadModelBench('dp', ROWS);
  const { ids, issuer } = bench;
  const env: NodeJS.ProcessEnv = { ...bench.env, RATE_LIMITS: 'RSP=off' };
  const servers: Server[] = [];
  try {
    const service = await startServer([join(LOCATION_QUERY_DIST, 'main.js')], env, '/health/ready');
    const unbounded = await startServer(
      [join(LOCATION_QUERY_DIST, 'main.js')],
      { ...env, READ_SCAN_CONCURRENCY: String(Number(env['READ_POOL_SIZE'] ?? '6') - 1) },
      '/health/ready',
    );
    servers.push(service, unbounded);
    const headers = { authorization: `Bearer ${await issuer.token({ scopes: ['locations:read'] })}` };

    let cursor = 0;
    const byId = () => `/locations/${ids[(cursor = (cursor + 7919) % ids.length)]}`;
    let page = 0;
    const deepPage = () =>
      (page += 1) % 2 === 0
        ? `/locations?limit=1000&after=${ids[Math.floor(Math.random() * ids.length)]}`
        : '/locations?limit=1000&offset=10000';
    const reads = (server: Server) =>
      measure({ url: server.url, connections: READERS, seconds: SECONDS, path: byId, headers });
    const underDeepPages = async (server: Server) => {
      const [measured, lists] = await Promise.all([
        reads(server),
        measure({ url: server.url, connections: LISTERS, seconds: SECONDS + 1, path: deepPage, headers }),
      ]);
      return { measured, lists };
    };
    const checked = (result: Measurement) => {
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
      return result;
    };

    log('warming up');
    for (const server of servers) {
      await reads(server);
      await underDeepPages(server);
    }
    const results = {
      idle: [] as Measurement[],
      loaded: [] as Measurement[],
      unbounded: [] as Measurement[],
      lists: [] as Measurement[],
      unboundedLists: [] as Measurement[],
    };
    for (let round = 1; round <= ROUNDS; round += 1) {
      log(`round ${round} of ${ROUNDS}`);
      results.idle.push(checked(await reads(service)));
      const loaded = await underDeepPages(service);
      results.loaded.push(checked(loaded.measured));
      results.lists.push(loaded.lists);
      const withoutBulkhead = await underDeepPages(unbounded);
      results.unbounded.push(checked(withoutBulkhead.measured));
      results.unboundedLists.push(withoutBulkhead.lists);
    }
    const load = await loadAverage();
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const p99 = (measured: Measurement[]) => median(measured.map((result) => result.p99));
    const rows = (label: string, measured: Measurement[], lists?: Measurement[]) =>
      measured.map((result, index) => [
        `${label}, round ${index + 1}`,
        result.requestsPerSecond.toFixed(0),
        result.p50,
        result.p99,
        lists === undefined ? '' : lists[index]!.requestsPerSecond.toFixed(0),
        lists === undefined ? '' : lists[index]!.p99,
        lists === undefined ? '' : lists[index]!.non2xx,
      ]);
    process.stdout.write(
      `\nGET /locations/{id} (${READERS} connections, random ids) while ${LISTERS} connections read deep pages ` +
        `(limit=1000, after a random id or offset=10000), ${ROWS.toLocaleString('en-US')} locations, ${ROUNDS} rounds ` +
        `of ${SECONDS} s; ${load}\n\n`,
    );
    process.stdout.write(
      `${table(
        ['reads by id', 'req/s', 'p50 ms', 'p99 ms', 'deep pages/s', 'deep page p99 ms', 'deep pages refused (503)'],
        [
          ...rows('idle (baseline)', results.idle),
          ...rows('under deep pages', results.loaded, results.lists),
          ...rows('under deep pages, bulkhead at pool size - 1', results.unbounded, results.unboundedLists),
        ],
      )}\n\n`,
    );
    process.stdout.write(
      `${table(
        ['reads by id', 'p99 vs idle (median of rounds; target ≤ 2)'],
        [
          ['under deep pages', (p99(results.loaded) / p99(results.idle)).toFixed(2)],
          ['under deep pages, bulkhead at pool size - 1', (p99(results.unbounded) / p99(results.idle)).toFixed(2)],
        ],
      )}\n`,
    );
  } finally {
    for (const server of servers) await server.stop();
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
