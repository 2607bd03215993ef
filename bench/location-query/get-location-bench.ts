/**
 * GET /locations/{id} of location-query at 1,000,000 locations, beside a baseline measured in the same run: a bare
 * Fastify handler doing the same primary-key lookup on the same table with node-postgres; and beside itself without
 * its per-client rate limit (RATE_LIMITS off), the cost of counting every request.
 *
 *   bash bench/location-query/run.sh     (BENCH_ROUNDS, default 3; BENCH_SECONDS per round and target, default 10;
 *                                        BENCH_ROWS, default 1e6)
 *
 * Setup (not timed): startReadModelBench (1,000,000 realistic locations written straight into a read model of the
 * run's own with COPY). The service then runs from dist/ exactly as in production (its projection positioned at the
 * end of the log so it reads no history), the baseline as its own process too (once as the plainest handler, once
 * with a named prepared statement as the service uses), and autocannon (64 connections, random ids) drives each in turn, BENCH_ROUNDS (3) rounds of BENCH_SECONDS (10), alternating, so a busy neighbour on
 * a shared machine hits all three alike. Loopback only; the service runs on topics of the run's own (a topic prefix,
 * deleted at the end). BENCH_KEEP=1 keeps the schema and the topics. BENCH_RESULT_FILE=<path> also writes the summary
 * as JSON there (bench:scale reads it): per target the mean req/s and the median p50 and p99 of the rounds.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REGISTER_SWC, REPO_ROOT } from '../../libs/testing/src/infra-env';
import { loadAverage, log, measure, type Measurement, type Server, startServer, table } from './bench-support';
import { LOCATION_QUERY_DIST, startReadModelBench } from './read-model-setup';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000);
const CONNECTIONS = 64;

async function main(): Promise<void> {
  const bench = await startReadModelBench('lq', ROWS);
  const { env, ids, issuer } = bench;
  const servers: Server[] = [];
  try {
    // One client drives every request: the service counts them under a quota it never reaches (the cost of the rate
    // limit is in the measurement), and a second one runs without it (the cost shown apart).
    const service = await startServer(
      [join(LOCATION_QUERY_DIST, 'main.js')],
      { ...env, RATE_LIMITS: 'RSP=999999999/10' },
      '/health/ready',
    );
    const unlimited = await startServer(
      [join(LOCATION_QUERY_DIST, 'main.js')],
      { ...env, RATE_LIMITS: 'RSP=off' },
      '/health/ready',
    );
    const baselineArgs = ['-r', REGISTER_SWC, join(REPO_ROOT, 'bench/location-query/bare-baseline.ts')];
    const baseline = await startServer(baselineArgs, env, '/ready');
    const prepared = await startServer(baselineArgs, { ...env, BASELINE_PREPARED: '1' }, '/ready');
    servers.push(service, unlimited, baseline, prepared);
    const token = await issuer.token({ scopes: ['locations:read'] });
    const headers = { authorization: `Bearer ${token}` };

    // Same bytes from all three, before anything is timed.
    for (const id of ids.slice(0, 20)) {
      const [a, b, c] = await Promise.all([
        fetch(`${service.url}/locations/${id}`, { headers }).then((response) => response.text()),
        fetch(`${baseline.url}/locations/${id}`).then((response) => response.text()),
        fetch(`${prepared.url}/locations/${id}`).then((response) => response.text()),
      ]);
      if (a !== b || a !== c) throw new Error(`service and baseline disagree on ${id}`);
    }

    let cursor = 0;
    const path = () => `/locations/${ids[(cursor = (cursor + 7919) % ids.length)]}`;
    const target = async (server: Server, seconds: number) => {
      const result = await measure({
        url: server.url,
        connections: CONNECTIONS,
        seconds,
        path,
        headers: server === service || server === unlimited ? headers : {},
      });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
      return result;
    };
    log('warming up');
    for (const server of [baseline, prepared, service, unlimited]) await target(server, 5);
    // The machine may be shared: short measurements of the four, alternating, several rounds.
    const results = {
      baseline: [] as Measurement[],
      prepared: [] as Measurement[],
      service: [] as Measurement[],
      unlimited: [] as Measurement[],
    };
    for (let round = 1; round <= ROUNDS; round += 1) {
      log(`round ${round} of ${ROUNDS}`);
      results.baseline.push(await target(baseline, SECONDS));
      results.prepared.push(await target(prepared, SECONDS));
      results.service.push(await target(service, SECONDS));
      results.unlimited.push(await target(unlimited, SECONDS));
    }
    const load = await loadAverage();
    const rows = (label: string, measured: Measurement[]) =>
      measured.map((result, index) => [
        `${label}, round ${index + 1}`,
        result.requestsPerSecond.toFixed(0),
        result.p50,
        result.p99,
      ]);
    const mean = (measured: Measurement[]) =>
      measured.reduce((sum, result) => sum + result.requestsPerSecond, 0) / measured.length;
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const p99 = (measured: Measurement[]) => median(measured.map((result) => result.p99));
    const resultFile = process.env['BENCH_RESULT_FILE'];
    if (resultFile) {
      const summary = (measured: Measurement[]) => ({
        requestsPerSecond: mean(measured),
        p50: median(measured.map((result) => result.p50)),
        p99: p99(measured),
      });
      await writeFile(
        resultFile,
        JSON.stringify({
          rows: ROWS,
          service: summary(results.service),
          baseline: summary(results.baseline),
          preparedBaseline: summary(results.prepared),
        }),
      );
    }

    process.stdout.write(
      `\nGET /locations/{id}, ${ROWS.toLocaleString('en-US')} locations, autocannon ${CONNECTIONS} connections, ` +
        `${ROUNDS} rounds of ${SECONDS} s per target, random ids; service LOG_LEVEL=${env['LOG_LEVEL']}; ${load}\n\n`,
    );
    process.stdout.write(
      `${table(
        ['target', 'req/s', 'p50 ms', 'p99 ms'],
        [
          ...rows('baseline (bare Fastify + pg)', results.baseline),
          ...rows('baseline with a prepared statement', results.prepared),
          ...rows('location-query', results.service),
          ...rows('location-query, RATE_LIMITS off', results.unlimited),
        ],
      )}\n\n`,
    );
    process.stdout.write(
      `${table(
        ['service vs', 'req/s ratio (mean of rounds; target ≥ 0.8)', 'p99 ratio (median of rounds; target ≤ 1.5)'],
        [
          [
            'baseline',
            (mean(results.service) / mean(results.baseline)).toFixed(2),
            (p99(results.service) / p99(results.baseline)).toFixed(2),
          ],
          [
            'baseline with a prepared statement',
            (mean(results.service) / mean(results.prepared)).toFixed(2),
            (p99(results.service) / p99(results.prepared)).toFixed(2),
          ],
          [
            "itself with RATE_LIMITS off (the rate limit's cost)",
            (mean(results.service) / mean(results.unlimited)).toFixed(2),
            (p99(results.service) / p99(results.unlimited)).toFixed(2),
          ],
        ],
      )}\n`,
    );
  } finally {
    for (const server of servers) await server.stop();
    await bench.close(process.env['BENCH_KEEP'] === '1');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
