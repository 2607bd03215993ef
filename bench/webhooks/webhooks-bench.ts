/**
 * Webhook fan-out: BENCH_EVENTS location events (default 20,000) delivered by webhook-dispatcher to BENCH_RECEIVERS
 * local receivers (default 5), beside a baseline measured in the same run: a bare loop of HTTP POSTs from one process
 * to the same receivers (bare-loop.ts), as many requests per receiver, as many in flight per receiver as the
 * dispatcher's per-endpoint concurrency, a body of the same size. Then the same fan-out again with one more endpoint
 * that accepts connections and never answers: the healthy receivers must keep their pace.
 *
 *   bash bench/webhooks/run.sh     (BENCH_EVENTS, BENCH_RECEIVERS, BENCH_NODE_ARGS)
 *
 * Setup (not timed): the receivers run in a process of their own (receivers.ts). The dispatcher runs from dist/ as
 * in production, in a world of its own as the integration tests prepare it (prepareDispatcherWorld: a fresh schema,
 * consumer groups and transport key, the subscriptions projection positioned at the end of the client topic), on
 * topics of the run's own (a topic prefix, deleted at the end: no running stack's dispatcher sees the events); this
 * process publishes one CLIENT_REGISTERED per receiver (the secret sealed with the run's key), then waits until the
 * dispatcher is ready (its intake has joined its group) and has every subscription.
 *
 * Measured: from the first event published (LOCATION_CREATED, in batches of 500, as location-command's relay
 * publishes) to the last delivery received, deliveries/s over the healthy receivers; event-to-receipt latency (the
 * receiver's clock minus the event's X-Event-Timestamp) p50 and p99; the dispatcher's peak RSS. The bare loop's
 * latency is from the request's creation to its receipt. Every delivery must arrive (a missing one fails the run) and
 * repeats of a webhook-id are counted. Loopback only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KAFKA_HEADERS, TOPICS } from '@lx/contracts';
import { loadInfraEnv, REGISTER_SWC, REPO_ROOT, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics, type PrivateTopics } from '../../libs/testing/src/kafka-topics';
import { aNewLocation } from '../../libs/testing/src/projections/projection-events';
import { waitFor } from '../../libs/testing/src/wait-for';
import {
  aWebhookSecret,
  prepareDispatcherWorld,
} from '../../services/webhook-dispatcher/test/support/dispatcher-harness';
import {
  loadAverage,
  log,
  percentile,
  processMemoryMb,
  type Server,
  startServer,
  table,
} from '../location-query/bench-support';

const EVENTS = Number(process.env['BENCH_EVENTS'] ?? 20_000);
const RECEIVERS = Number(process.env['BENCH_RECEIVERS'] ?? 5);
const ENDPOINT_CONCURRENCY = 16;
const PUBLISH_BATCH = 500;
const DELIVERY_TIMEOUT_MS = 15 * 60_000;
/** Extra node flags for the dispatcher process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
const NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter((arg) => arg !== '');
const MAIN = join(REPO_ROOT, 'dist/services/webhook-dispatcher/services/webhook-dispatcher/src/main.js');

interface ReceiverStats {
  count: number;
  latenciesMs: number[];
  duplicates: number;
  first: number;
  last: number;
}

interface Receivers {
  ports: number[];
  hanging: number;
  control: number;
  process: ChildProcess;
}

interface Result {
  run: string;
  deliveries: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  duplicates: number;
  peakRssMb?: number;
  /** Until the intake had created every delivery. */
  intakeSeconds?: number;
  /** CPU time (user + system) of the dispatcher process during the run. */
  cpuSeconds?: number;
}

/** User + system CPU seconds of a process so far (Linux /proc; clock ticks of 10 ms). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function startReceivers(): Promise<Receivers> {
  const child = spawn(process.execPath, ['-r', REGISTER_SWC, join(__dirname, 'receivers.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, BENCH_RECEIVERS: String(RECEIVERS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  return { ...(JSON.parse(line) as Omit<Receivers, 'process'>), process: child };
}

/** The receivers' counts; with `latencies`, every latency too (a large reply: only at the end of a run). */
async function stats(receivers: Receivers, latencies = false): Promise<ReceiverStats[]> {
  const url = `http://127.0.0.1:${receivers.control}/stats${latencies ? '?latencies=1' : ''}`;
  return (await (await fetch(url)).json()) as ReceiverStats[];
}

async function reset(receivers: Receivers): Promise<void> {
  await fetch(`http://127.0.0.1:${receivers.control}/reset`, { method: 'POST' });
}

function summarise(run: string, started: number, all: ReceiverStats[], peakRssMb?: number): Result {
  const deliveries = all.reduce((sum, receiver) => sum + receiver.count, 0);
  const last = Math.max(...all.map((receiver) => receiver.last));
  const seconds = (last - started) / 1000;
  const latencies = all.flatMap((receiver) => receiver.latenciesMs);
  return {
    run,
    deliveries,
    seconds,
    perSecond: deliveries / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    duplicates: all.reduce((sum, receiver) => sum + receiver.duplicates, 0),
    ...(peakRssMb === undefined ? {} : { peakRssMb }),
  };
}

/** The body size of a location event delivery, for the bare loop. */
function sampleBody(): string {
  const location = aNewLocation();
  return JSON.stringify({
    event: {
      id: randomUUID(),
      type: 'LOCATION_CREATED',
      timestamp: location.createdAt,
      source: 'bench',
      data: location,
    },
  });
}

async function bareLoop(receivers: Receivers): Promise<Result> {
  await reset(receivers);
  const started = Date.now();
  const child = spawn(process.execPath, ['-r', REGISTER_SWC, join(__dirname, 'bare-loop.ts')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      BARE_PORTS: receivers.ports.join(','),
      BARE_REQUESTS: String(EVENTS),
      BARE_CONCURRENCY: String(ENDPOINT_CONCURRENCY),
      BARE_BODY: sampleBody(),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(createInterface({ input: child.stdout }), 'line');
  await once(child, 'exit');
  return summarise('bare loop (baseline)', started, await stats(receivers, true));
}

async function dispatcherRun(
  run: string,
  receivers: Receivers,
  topics: PrivateTopics,
  withHanging: boolean,
): Promise<Result> {
  // The dispatcher's settings are the defaults but for the loopback receivers, and the run's topics and groups.
  const world = await prepareDispatcherWorld({
    ...topics.env,
    LOG_LEVEL: 'warn',
    WEBHOOK_POLL_INTERVAL: '500ms',
    WEBHOOK_RETRY_JITTER: '0.2',
    WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_CONCURRENCY),
  });
  const { bus, db } = world;
  let dispatcher: Server | undefined;
  try {
    const endpoints = [...receivers.ports, ...(withHanging ? [receivers.hanging] : [])];
    const clients = endpoints.map(() => randomUUID());
    for (const [index, clientId] of clients.entries()) {
      const webhookUrl = `http://127.0.0.1:${endpoints[index]}/hooks`;
      await world.publishClient('CLIENT_REGISTERED', { clientId, webhookUrl, secret: aWebhookSecret() }, 1);
    }
    dispatcher = await startServer([...NODE_ARGS, MAIN], world.env, '/health/ready');
    for (const clientId of clients) await world.waitForSubscription(clientId, 1);
    await reset(receivers);
    log(`${run}: publishing ${EVENTS} location events`);
    const started = Date.now();
    for (let offset = 0; offset < EVENTS; offset += PUBLISH_BATCH) {
      const batch = Array.from({ length: Math.min(PUBLISH_BATCH, EVENTS - offset) }, () => {
        const location = aNewLocation();
        const event = {
          id: randomUUID(),
          type: 'LOCATION_CREATED',
          timestamp: new Date().toISOString(),
          source: 'bench',
          data: location,
        };
        return { key: location.id, value: JSON.stringify(event), headers: { [KAFKA_HEADERS.aggregateVersion]: '1' } };
      });
      await bus.publish(TOPICS.locationEvents.name, batch);
    }
    const expected = EVENTS * receivers.ports.length;
    const cpuBefore = await cpuSeconds(dispatcher.process.pid!);
    let peak = 0;
    let intakeSeconds = NaN;
    await waitFor(
      `${expected} deliveries`,
      async () => {
        peak = Math.max(peak, (await processMemoryMb(dispatcher!.process.pid!)).peak);
        if (Number.isNaN(intakeSeconds)) {
          const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM deliveries');
          if (rows[0]!.n >= EVENTS * endpoints.length) intakeSeconds = (Date.now() - started) / 1000;
        }
        const received = (await stats(receivers)).reduce((sum, receiver) => sum + receiver.count, 0);
        return received >= expected;
      },
      DELIVERY_TIMEOUT_MS,
    );
    const all = await stats(receivers, true);
    for (const [index, receiver] of all.entries()) {
      if (receiver.count - receiver.duplicates !== EVENTS) {
        throw new Error(
          `receiver ${index} got ${receiver.count - receiver.duplicates} distinct deliveries, not ${EVENTS}`,
        );
      }
    }
    const cpu = (await cpuSeconds(dispatcher.process.pid!)) - cpuBefore;
    log(
      `${run}: deliveries recorded by the intake after ${intakeSeconds.toFixed(1)} s; dispatcher CPU ${cpu.toFixed(1)} s`,
    );
    return { ...summarise(run, started, all, peak), intakeSeconds, cpuSeconds: cpu };
  } finally {
    await dispatcher?.stop();
    await world.close();
  }
}

async function main(): Promise<void> {
  loadInfraEnv();
  const topics = await createPrivateTopics(requireEnv('KAFKA_BROKERS').split(','), 'lxbench');
  const receivers = await startReceivers();
  try {
    log(`bare loop: ${EVENTS} POSTs to each of ${RECEIVERS} receivers`);
    const bare = await bareLoop(receivers);
    const healthy = await dispatcherRun(`dispatcher, ${RECEIVERS} endpoints`, receivers, topics, false);
    const beside = await dispatcherRun(`dispatcher, ${RECEIVERS} endpoints + 1 hanging`, receivers, topics, true);
    const load = await loadAverage();
    const ms = (value: number) => String(Math.round(value));
    console.log(
      table(
        [
          'run',
          'deliveries',
          'seconds',
          'deliveries/s',
          'vs bare loop',
          'p50 ms',
          'p99 ms',
          'repeats',
          'intake s',
          'dispatcher CPU s',
          'peak RSS MB',
        ],
        [bare, healthy, beside].map((result) => [
          result.run,
          result.deliveries.toLocaleString('en-US'),
          result.seconds.toFixed(1),
          Math.round(result.perSecond).toLocaleString('en-US'),
          `${(result.perSecond / bare.perSecond).toFixed(2)}×`,
          ms(result.p50),
          ms(result.p99),
          String(result.duplicates),
          result.intakeSeconds === undefined ? '—' : result.intakeSeconds.toFixed(1),
          result.cpuSeconds === undefined ? '—' : result.cpuSeconds.toFixed(1),
          result.peakRssMb === undefined ? '—' : String(Math.round(result.peakRssMb)),
        ]),
      ),
    );
    const pace = beside.perSecond / healthy.perSecond;
    const p99 = healthy.p99 / beside.p99;
    console.log(
      [
        '',
        `Target ≥ 2,000 deliveries/s: ${Math.round(healthy.perSecond) >= 2000 ? 'met' : 'NOT met'} (${Math.round(healthy.perSecond)}/s).`,
        `Target ≥ 0.5× the bare loop: ${healthy.perSecond / bare.perSecond >= 0.5 ? 'met' : 'NOT met'} (${(healthy.perSecond / bare.perSecond).toFixed(2)}×).`,
        `Beside a hanging endpoint the healthy receivers keep ${pace.toFixed(2)}× their deliveries/s and ${p99.toFixed(2)}× their p99 (target ≥ 0.9× each): ${pace >= 0.9 && p99 >= 0.9 ? 'met' : 'NOT met'}.`,
        `${load}.`,
      ].join('\n'),
    );
  } finally {
    receivers.process.kill('SIGTERM');
    await topics.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
