/**
 * Write benchmark of location-command's operator API, beside a baseline measured in the same run:
 *
 *   bash bench/location-command/run-write.sh   (BENCH_RATES, BENCH_SECONDS, BENCH_CONNECTIONS)
 *
 * location-command runs from dist/ as its own process on a fresh schema; the baseline (write-baseline.ts) is a bare
 * Fastify + pg handler doing one INSERT per request with the same durability (synchronous commit). Setup (not timed):
 * 2,000 locations created through the API. Then, for each offered rate, an open loop (every 10 ms the writes due are
 * sent, at most 512 in flight; one that would exceed it is counted as not sent): 80 % PATCH of status and notes on a
 * random location, 20 % POST of a new one; the same requests to the baseline. Then a closed loop: BENCH_CONNECTIONS
 * writers, each sending its next write when the previous one answered. Reports writes/s, p50 and p99 latency of each
 * and the ratio. Loopback only; the service's relay publishes to topics of the run's own (a topic prefix, deleted at
 * the end), so no running stack's consumer sees the writes. BENCH_KEEP=1 keeps the schemas and the topics.
 */
import { Agent } from 'node:http';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadInfraEnv, REPO_ROOT, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics } from '../../libs/testing/src/kafka-topics';
import { startTestTokenIssuer } from '../../libs/testing/src/token-issuer';
import {
  aWriteBody,
  call,
  loadAverage,
  log,
  percentile,
  type Reply,
  type Server,
  startServer,
  table,
} from '../location-query/bench-support';

const RATES = (process.env['BENCH_RATES'] ?? '250,500,1000,2000').split(',').map(Number);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 64);
const SEED_LOCATIONS = 2_000;
const MAX_IN_FLIGHT = 512;
const SERVICE = join(REPO_ROOT, 'dist/services/location-command/services/location-command/src');
const STATUSES = ['PLANNED', 'CONSTRUCTION', 'ACTIVE', 'INACTIVE'];

const agent = new Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });

const aBody = (n: number) => aWriteBody('Write', n);

/** Sends the n-th write of the mix (every fifth a POST) to a target; the reply. */
type Target = (n: number) => Promise<Reply>;

interface Result {
  writes: number;
  perSecond: number;
  p50: number;
  p99: number;
  failed: number;
  notSent: number;
}

/** The open loop: `rate` writes/s offered for SECONDS, whatever the answers. */
async function openLoop(target: Target, rate: number): Promise<Result> {
  const latencies: number[] = [];
  let inFlight = 0;
  let failed = 0;
  let notSent = 0;
  let issued = 0;
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) {
    const due = Math.floor((rate * (performance.now() - started)) / 1000) - issued;
    issued += due;
    for (let index = 0; index < due; index += 1) {
      if (inFlight >= MAX_IN_FLIGHT) {
        notSent += 1;
        continue;
      }
      inFlight += 1;
      n += 1;
      const sent = performance.now();
      void target(n)
        .then((reply) => {
          if (reply.status === 200 || reply.status === 201) latencies.push(performance.now() - sent);
          else failed += 1;
        })
        .catch(() => (failed += 1))
        .finally(() => (inFlight -= 1));
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const elapsed = (performance.now() - started) / 1000;
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  return summary(latencies, elapsed, failed, notSent);
}

/** The closed loop: CONNECTIONS writers for SECONDS, each waiting for its answer. */
async function closedLoop(target: Target): Promise<Result> {
  const latencies: number[] = [];
  let failed = 0;
  let n = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        n += 1;
        const sent = performance.now();
        const reply = await target(n).catch(() => undefined);
        if (reply?.status === 200 || reply?.status === 201) latencies.push(performance.now() - sent);
        else failed += 1;
      }
    }),
  );
  return summary(latencies, (performance.now() - started) / 1000, failed, 0);
}

function summary(latencies: number[], elapsed: number, failed: number, notSent: number): Result {
  return {
    writes: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failed,
    notSent,
  };
}

async function main(): Promise<void> {
  loadInfraEnv();
  const databaseUrl = requireEnv('DATABASE_URL');
  const suffix = Date.now().toString(36);
  const schemas = { service: `bench_write_lc_${suffix}`, bare: `bench_write_bare_${suffix}` };
  const topics = await createPrivateTopics(requireEnv('KAFKA_BROKERS').split(','), 'lxbench');
  const issuer = await startTestTokenIssuer();
  const base = {
    ...process.env,
    ...issuer.env,
    ...topics.env,
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
  };
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const servers: Server[] = [];
  try {
    await db.query(`CREATE SCHEMA ${schemas.bare}`);
    await db.query(
      `CREATE TABLE ${schemas.bare}.writes (seq bigserial PRIMARY KEY, thing_id uuid NOT NULL, body jsonb NOT NULL)`,
    );
    const service = await startServer(
      [join(SERVICE, 'main.js')],
      { ...base, DATABASE_SCHEMA: schemas.service },
      '/health/ready',
    );
    servers.push(service);
    const bare = await startServer(
      ['-r', './libs/testing/register-swc.js', join(REPO_ROOT, 'bench/location-command/write-baseline.ts')],
      { ...base, DATABASE_SCHEMA: schemas.bare },
      '/ready',
    );
    servers.push(bare);
    const token = await issuer.token({ scopes: ['locations:write'] });

    log(`creating ${SEED_LOCATIONS} locations (not timed)`);
    const ids: string[] = [];
    for (let start = 0; start < SEED_LOCATIONS; start += 50) {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          call(agent, `${service.url}/operator/locations`, 'POST', token, aBody(start + index)),
        ),
      );
      for (const reply of replies) {
        if (reply.status !== 201) throw new Error(`create: ${reply.status} ${reply.body}`);
        ids.push((JSON.parse(reply.body) as { id: string }).id);
      }
    }
    const patchOf = (n: number) => ({
      notes: `write ${n}`,
      fiberAccessDetails: { serviceability: { status: STATUSES[n % 4] } },
    });
    const pick = () => ids[Math.floor(Math.random() * ids.length)]!;
    const toService: Target = (n) =>
      n % 5 === 0
        ? call(agent, `${service.url}/operator/locations`, 'POST', token, aBody(SEED_LOCATIONS + n))
        : call(
            agent,
            `${service.url}/operator/locations/${pick()}`,
            'PATCH',
            token,
            patchOf(n),
            'application/merge-patch+json',
          );
    const toBare: Target = (n) =>
      n % 5 === 0
        ? call(agent, `${bare.url}/things`, 'POST', token, aBody(SEED_LOCATIONS + n))
        : call(agent, `${bare.url}/things/${pick()}`, 'PATCH', token, patchOf(n));

    const rows: (string | number)[][] = [];
    const cells = (result: Result) => [
      result.perSecond.toFixed(0),
      result.p50.toFixed(1),
      result.p99.toFixed(1),
      result.failed + result.notSent,
    ];
    const add = (label: string, measured: Result, baseline: Result) =>
      rows.push([label, ...cells(measured), ...cells(baseline), (measured.perSecond / baseline.perSecond).toFixed(2)]);
    for (const rate of RATES) {
      log(`open loop at ${rate}/s for ${SECONDS} s: location-command, then the baseline`);
      const measured = await openLoop(toService, rate);
      const baseline = await openLoop(toBare, rate);
      add(`open loop, ${rate}/s offered`, measured, baseline);
    }
    log(`closed loop, ${CONNECTIONS} connections for ${SECONDS} s: location-command, then the baseline`);
    add(`closed loop, ${CONNECTIONS} connections`, await closedLoop(toService), await closedLoop(toBare));
    const load = await loadAverage();

    process.stdout.write(
      `\nWrites through location-command (80 % PATCH, 20 % POST) beside a bare Fastify + pg INSERT per request; ${load}\n\n` +
        `${table(
          [
            'loop',
            'location-command writes/s',
            'p50 ms',
            'p99 ms',
            'failed or not sent',
            'bare INSERT writes/s',
            'p50 ms',
            'p99 ms',
            'failed or not sent',
            'ratio',
          ],
          rows,
        )}\n`,
    );
  } finally {
    for (const server of servers) await server.stop().catch(() => undefined);
    await issuer.close();
    if (process.env['BENCH_KEEP'] !== '1') {
      for (const schema of Object.values(schemas)) {
        await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      }
      await topics.remove();
    }
    await db.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
