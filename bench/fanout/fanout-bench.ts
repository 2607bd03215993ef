/**
 * Webhook fan-out at operator scale (issue 25): BENCH_EVENTS location events (default 10,000) fanned out by
 * webhook-dispatcher to 100 local receivers: BENCH_HEALTHY (90) that answer 200 at once, BENCH_SLOW (5) that answer
 * 200 after a second, BENCH_FLAKY (3) that answer 500 to the first attempt of 10 % of the messages (chosen by a hash of
 * the webhook-id, so every message is delivered in the end) and BENCH_HANGING (2) that accept connections and never
 * answer: 1,000,000 deliveries. Three runs in one invocation:
 *
 * 1. baseline: a bare loop of keep-alive HTTP POSTs from one process to the healthy receivers (bare-loop.ts), as many
 *    requests per receiver as events, 16 in flight per receiver (the dispatcher's WEBHOOK_ENDPOINT_CONCURRENCY), a body
 *    of a delivery's size; no database, no Kafka, no signature;
 * 2. the dispatcher with the healthy endpoints only;
 * 3. the dispatcher with all of them: what the unhealthy endpoints cost the healthy ones.
 *
 *   bash bench/fanout/run.sh     (BENCH_EVENTS, BENCH_HEALTHY, BENCH_SLOW, BENCH_FLAKY, BENCH_HANGING,
 *                                 BENCH_TIMEOUT (default 20m), BENCH_NODE_ARGS)
 *
 * Setup (not timed): the receivers run in a process of their own (../webhooks/receivers.ts). Each dispatcher run has
 * a world of its own: topics under a prefix of its own (deleted at its end) and, as the integration tests prepare it
 * (prepareDispatcherWorld), a fresh schema, consumer groups and transport key, the subscriptions projection positioned
 * at the end of the client topic. This process publishes one CLIENT_REGISTERED per endpoint (the secret sealed with
 * the world's key), starts the dispatcher from dist/ as in production (env config only), and waits until it is ready
 * (/health/ready) and has every subscription. The dispatcher runs with the memory settings docs/operations.md
 * recommends (`--max-old-space-size=192 --max-semi-space-size=4`, MALLOC_ARENA_MAX=2, MALLOC_MMAP_THRESHOLD_=1048576;
 * BENCH_NODE_ARGS="" runs it without a heap cap), with bench:webhooks' dispatcher settings otherwise.
 *
 * Measured per run, from the first event published (LOCATION_CREATED with the aggregate version header, in batches of
 * 500, as location-command's relay publishes) until every healthy receiver has received every event (distinct
 * webhook-ids; the slow, flaky and hanging ones need not finish): healthy deliveries/s and the seconds until the last
 * healthy delivery; event-to-receipt latency over the healthy deliveries (the receiver's clock minus the event's
 * X-Event-Timestamp; the bare loop's from the request's creation) p50 and p99; repeats of a webhook-id already
 * answered 2xx; the dispatcher's peak RSS (VmRSS of /proc/<pid>/status sampled every 250 ms from its start until it
 * stopped); and Postgres rows written per successful delivery: the growth of sum(n_tup_ins + n_tup_upd + n_tup_del)
 * of pg_stat_user_tables over the world's schema, divided by the 2xx answers of all receivers. The run's end stops the
 * dispatcher at once, and both counts are read after it stopped: the rows and the 2xx answers of the same span. Those
 * counters are published by each Postgres backend at most once a second, when it goes idle, and counters held back
 * then at the latest after 10 s of idleness or when its connection ends (PostgreSQL 15+; pg_stat_force_next_flush()
 * acts only on the backend calling it). So the count before publishing is read once it has not moved for 11 s (the
 * subscriptions just written are in it), and the count after once the dispatcher's connections have ended and it has
 * not moved for 2 s. A run that does not deliver every event to every healthy receiver within BENCH_TIMEOUT fails the
 * benchmark.
 *
 * Targets on the project's 2-core machine, each printed PASS or MISS: healthy deliveries ≥ 0.7× the bare loop (with
 * all endpoints); the unhealthy endpoints cost the healthy ones less than 10 % of their rate and of their p99 (all
 * endpoints against healthy only); at most 0.05 Postgres rows written per successful delivery and a dispatcher RSS
 * under 256 MB throughout (both dispatcher runs). Loopback only.
 */
import type { Client } from 'pg';
import { parseDuration } from '@lx/domain';
import { loadInfraEnv, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics } from '../../libs/testing/src/kafka-topics';
import {
  type DispatcherWorld,
  prepareDispatcherWorld,
} from '../../services/webhook-dispatcher/test/support/dispatcher-harness';
import { loadAverage, log, processMemoryMb, type Server, table } from '../location-query/bench-support';
import {
  bareLoop,
  DISPATCHER_SETTINGS,
  ofKind,
  publishLocationEvents,
  type ReceiverKind,
  type Receivers,
  type ReceiverStats,
  receiverStats,
  resetReceivers,
  type Result,
  startReceivers,
  startSubscribedDispatcher,
  summarise,
} from '../webhooks/webhook-bench-support';

/** A whole number of at least `min` from the environment, or `fallback`. */
function count(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number ≥ ${min}, not ${raw}`);
  return value;
}

/** A duration such as 90s or 20m (the services' format) in ms. */
function milliseconds(name: string, text: string): number {
  const value = parseDuration(text);
  if (value === undefined) throw new Error(`${name} must be a duration such as 90s or 20m, not ${text}`);
  return value;
}

const EVENTS = count('BENCH_EVENTS', 10_000, 1);
const COUNTS: Record<ReceiverKind, number> = {
  healthy: count('BENCH_HEALTHY', 90, 1),
  slow: count('BENCH_SLOW', 5),
  flaky: count('BENCH_FLAKY', 3),
  hanging: count('BENCH_HANGING', 2),
};
const UNHEALTHY = COUNTS.slow + COUNTS.flaky + COUNTS.hanging;
const TIMEOUT = process.env['BENCH_TIMEOUT'] || '20m';
const TIMEOUT_MS = milliseconds('BENCH_TIMEOUT', TIMEOUT);
/** The heap settings docs/operations.md recommends; BENCH_NODE_ARGS replaces them (e.g. with `--cpu-prof`). */
const NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '--max-old-space-size=192 --max-semi-space-size=4')
  .split(' ')
  .filter((arg) => arg !== '');
/** glibc's memory settings docs/operations.md recommends, unless the environment sets them. */
const MALLOC_SETTINGS = {
  MALLOC_ARENA_MAX: process.env['MALLOC_ARENA_MAX'] ?? '2',
  MALLOC_MMAP_THRESHOLD_: process.env['MALLOC_MMAP_THRESHOLD_'] ?? '1048576',
};
const RSS_SAMPLE_MS = 250;
/** Longer than PostgreSQL's 10 s after which an idle backend publishes the table counters it held back. */
const IDLE_BACKEND_QUIET_MS = 11_000;
/** Once the dispatcher's connections have ended (a backend publishes its counters as it exits). */
const ENDED_BACKEND_QUIET_MS = 2_000;
const PROGRESS_EVERY_MS = 30_000;

const TARGETS = { bareRatio: 0.7, unhealthyCostPercent: 10, rowsPerDelivery: 0.05, rssMb: 256 };

interface FanoutResult extends Result {
  endpoints: number;
  /** 2xx answers of all receivers until the dispatcher stopped. */
  successes: number;
  rowWrites: number;
  /** The largest VmRSS sampled. */
  peakRssMb: number;
  /** VmHWM at the last sample, the kernel's own peak, as a check on the sampling. */
  highWaterMarkMb: number;
  /** The counts of the slow, flaky and hanging receivers until the dispatcher stopped. */
  unhealthy: ReceiverStats[];
}

interface RssSampler {
  /** Stops sampling: the largest VmRSS sampled, and the last VmHWM read (the kernel's peak since the start), in MiB. */
  stop(): { peakRssMb: number; highWaterMarkMb: number };
}

/** Samples the resident set of `pid` every RSS_SAMPLE_MS. */
function sampleRss(pid: number): RssSampler {
  let peakRssMb = 0;
  let highWaterMarkMb = NaN;
  const sample = () =>
    void processMemoryMb(pid).then(
      ({ rss, peak }) => {
        if (!Number.isNaN(rss)) peakRssMb = Math.max(peakRssMb, rss);
        if (!Number.isNaN(peak)) highWaterMarkMb = peak;
      },
      () => undefined,
    );
  sample();
  const timer = setInterval(sample, RSS_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return { peakRssMb, highWaterMarkMb };
    },
  };
}

/** Rows inserted, updated and deleted in `schema`'s tables so far, as the statistics collector has them. */
async function rowWrites(db: Client, schema: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text AS n FROM pg_stat_user_tables
     WHERE schemaname = $1`,
    [schema],
  );
  return Number(rows[0]!.n);
}

/** The row writes once the counters have not moved for `quietMs` (read every 500 ms; at most a minute). */
async function settledRowWrites(world: DispatcherWorld, quietMs: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  let value = await rowWrites(world.db, world.schema);
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > deadline) {
      log(`the row counters of ${world.schema} did not settle within a minute; taking ${value}`);
      return value;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await rowWrites(world.db, world.schema);
    if (now !== value) [value, since] = [now, Date.now()];
  }
  return value;
}

/** Waits until every healthy receiver has every event; fails when the dispatcher exits or BENCH_TIMEOUT passes. */
async function untilHealthyDelivered(run: string, receivers: Receivers, dispatcher: Server): Promise<void> {
  const started = Date.now();
  const expected = EVENTS * receivers.healthy.length;
  let progress = started + PROGRESS_EVERY_MS;
  for (;;) {
    const healthy = ofKind(await receiverStats(receivers), 'healthy');
    const got = healthy.reduce((sum, receiver) => sum + Math.min(receiver.unique, EVENTS), 0);
    if (got === expected) return;
    const { exitCode, signalCode } = dispatcher.process;
    if (exitCode !== null || signalCode !== null) {
      throw new Error(
        `${run}: the dispatcher exited (${exitCode ?? signalCode}) after ${got} of ${expected} deliveries`,
      );
    }
    const behind = healthy.filter((receiver) => receiver.unique < EVENTS);
    const furthest = Math.min(...behind.map((receiver) => receiver.unique));
    const state = `${got.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} healthy deliveries, ${behind.length} of ${healthy.length} healthy receivers behind (the furthest at ${furthest} of ${EVENTS})`;
    if (Date.now() - started > TIMEOUT_MS) {
      throw new Error(`${run}: the healthy deliveries did not complete within BENCH_TIMEOUT=${TIMEOUT}: ${state}`);
    }
    if (Date.now() > progress) {
      log(`${run}: ${state} after ${Math.round((Date.now() - started) / 1000)} s`);
      progress += PROGRESS_EVERY_MS;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function dispatcherRun(run: string, receivers: Receivers, ports: readonly number[]): Promise<FanoutResult> {
  const topics = await createPrivateTopics(requireEnv('KAFKA_BROKERS').split(','), 'lxbench');
  let world: DispatcherWorld | undefined;
  let dispatcher: Server | undefined;
  let rss: RssSampler | undefined;
  try {
    world = await prepareDispatcherWorld({ ...topics.env, ...DISPATCHER_SETTINGS, ...MALLOC_SETTINGS });
    dispatcher = await startSubscribedDispatcher(world, ports, NODE_ARGS);
    rss = sampleRss(dispatcher.process.pid!);
    const before = await settledRowWrites(world, IDLE_BACKEND_QUIET_MS);
    await resetReceivers(receivers);
    log(`${run}: publishing ${EVENTS} location events to ${ports.length} endpoints`);
    const started = await publishLocationEvents(world.bus, EVENTS);
    await untilHealthyDelivered(run, receivers, dispatcher);
    const healthy = ofKind(await receiverStats(receivers, true), 'healthy');
    await dispatcher.stop();
    const { peakRssMb, highWaterMarkMb } = rss.stop();
    const after = await settledRowWrites(world, ENDED_BACKEND_QUIET_MS);
    const all = await receiverStats(receivers);
    return {
      ...summarise(run, started, healthy),
      peakRssMb,
      highWaterMarkMb,
      endpoints: ports.length,
      successes: all.reduce((sum, receiver) => sum + receiver.ok, 0),
      rowWrites: after - before,
      unhealthy: all.filter((receiver) => receiver.kind !== 'healthy'),
    };
  } finally {
    rss?.stop();
    await dispatcher?.stop();
    await world?.close();
    await topics.remove();
  }
}

const rowsPerDelivery = (result: FanoutResult) => result.rowWrites / result.successes;
const percent = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)} %`;
const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');

function report(bare: Result, healthyOnly: FanoutResult, all: FanoutResult): string {
  const integer = (value: number) => Math.round(value).toLocaleString('en-US');
  const runs: (Result | FanoutResult)[] = [bare, healthyOnly, all];
  const rows = runs.map((result) => {
    const fanout = 'endpoints' in result ? result : undefined;
    return [
      result.run,
      fanout === undefined ? String(COUNTS.healthy) : String(fanout.endpoints),
      integer(result.deliveries),
      result.seconds.toFixed(1),
      integer(result.perSecond),
      `${(result.perSecond / bare.perSecond).toFixed(2)}×`,
      integer(result.p50),
      integer(result.p99),
      String(result.duplicates),
      fanout === undefined ? '—' : integer(fanout.successes),
      fanout === undefined ? '—' : integer(fanout.rowWrites),
      fanout === undefined ? '—' : rowsPerDelivery(fanout).toFixed(3),
      fanout === undefined ? '—' : integer(fanout.peakRssMb),
    ];
  });
  const header = [
    'run',
    'endpoints',
    'healthy deliveries',
    's to last healthy',
    'healthy deliveries/s',
    'vs bare loop',
    'p50 ms',
    'p99 ms',
    'repeats',
    '2xx deliveries (all)',
    'PG rows written',
    'rows per 2xx',
    'peak RSS MB',
  ];
  const unhealthy = (kind: ReceiverKind) => ofKind(all.unhealthy, kind);
  const sum = (receivers: ReceiverStats[], field: 'count' | 'ok' | 'failed' | 'unique') =>
    integer(receivers.reduce((total, receiver) => total + receiver[field], 0));
  const ratio = all.perSecond / bare.perSecond;
  const rateCost = (100 * (healthyOnly.perSecond - all.perSecond)) / healthyOnly.perSecond;
  const p99Cost = (100 * (all.p99 - healthyOnly.p99)) / healthyOnly.p99;
  const worstRows = Math.max(rowsPerDelivery(healthyOnly), rowsPerDelivery(all));
  const worstRss = Math.max(healthyOnly.peakRssMb, all.peakRssMb);
  return [
    table(header, rows),
    '',
    `Meanwhile, with all ${all.endpoints} endpoints: the ${COUNTS.slow} slow receivers answered ${sum(unhealthy('slow'), 'ok')} deliveries; ` +
      `the ${COUNTS.flaky} flaky ones got ${sum(unhealthy('flaky'), 'count')} requests (${sum(unhealthy('flaky'), 'failed')} answered 500, ` +
      `${sum(unhealthy('flaky'), 'ok')} delivered); the ${COUNTS.hanging} hanging ones held ${sum(unhealthy('hanging'), 'count')} requests ` +
      `(${sum(unhealthy('hanging'), 'unique')} distinct).`,
    `The ${UNHEALTHY} unhealthy endpoints change the healthy ${COUNTS.healthy}'s deliveries/s by ${percent(-rateCost)} and their p99 by ${percent(p99Cost)}.`,
    '',
    `Healthy deliveries ≥ ${TARGETS.bareRatio}× the bare loop: ${verdict(ratio >= TARGETS.bareRatio)} (${ratio.toFixed(2)}× with all endpoints; ${(healthyOnly.perSecond / bare.perSecond).toFixed(2)}× healthy only).`,
    `The unhealthy endpoints cost the healthy < ${TARGETS.unhealthyCostPercent} % of their rate: ${verdict(rateCost < TARGETS.unhealthyCostPercent)} (${rateCost.toFixed(1)} %).`,
    `The unhealthy endpoints cost the healthy < ${TARGETS.unhealthyCostPercent} % of their p99: ${verdict(p99Cost < TARGETS.unhealthyCostPercent)} (${p99Cost.toFixed(1)} %).`,
    `At most ${TARGETS.rowsPerDelivery} Postgres rows written per successful delivery: ${verdict(worstRows <= TARGETS.rowsPerDelivery)} (${rowsPerDelivery(healthyOnly).toFixed(3)} healthy only, ${rowsPerDelivery(all).toFixed(3)} all endpoints).`,
    `Dispatcher RSS under ${TARGETS.rssMb} MB throughout: ${verdict(worstRss < TARGETS.rssMb)} (peak ${Math.round(healthyOnly.peakRssMb)} MB healthy only, ${Math.round(all.peakRssMb)} MB all endpoints; VmHWM ${Math.round(healthyOnly.highWaterMarkMb)} and ${Math.round(all.highWaterMarkMb)} MB; dispatcher node flags: ${NODE_ARGS.join(' ') || 'none'}).`,
  ].join('\n');
}

async function main(): Promise<void> {
  loadInfraEnv();
  const receivers = await startReceivers(COUNTS);
  try {
    log(`bare loop: ${EVENTS} POSTs to each of ${COUNTS.healthy} healthy receivers`);
    const bare = await bareLoop('bare loop (baseline)', receivers, EVENTS);
    log(`bare loop: ${Math.round(bare.perSecond)} deliveries/s, p99 ${bare.p99} ms`);
    const healthyOnly = await dispatcherRun(`dispatcher, ${COUNTS.healthy} healthy`, receivers, receivers.healthy);
    log(`${healthyOnly.run}: ${Math.round(healthyOnly.perSecond)} deliveries/s, p99 ${healthyOnly.p99} ms`);
    const all = await dispatcherRun(`dispatcher, ${COUNTS.healthy} healthy + ${UNHEALTHY} unhealthy`, receivers, [
      ...receivers.healthy,
      ...receivers.slow,
      ...receivers.flaky,
      ...receivers.hanging,
    ]);
    console.log(report(bare, healthyOnly, all));
    console.log(`${await loadAverage()}.`);
  } finally {
    receivers.process.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
