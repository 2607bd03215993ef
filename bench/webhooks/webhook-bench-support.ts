/**
 * What the webhook benchmarks share (bench:webhooks, bench:fanout): the receivers in a process of their own
 * (receivers.ts) and their counts, the bare loop baseline (bare-loop.ts), location events published as
 * location-command's relay publishes them, and the dispatcher started from dist/ in a world of its own with one
 * subscriber per receiver.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KAFKA_HEADERS, TOPICS } from '@lx/contracts';
import type { KafkaEventBus } from '@lx/messaging';
import { REGISTER_SWC, REPO_ROOT } from '../../libs/testing/src/infra-env';
import { aNewLocation } from '../../libs/testing/src/projections/projection-events';
import {
  aWebhookSecret,
  type DispatcherWorld,
} from '../../services/webhook-dispatcher/test/support/dispatcher-harness';
import { percentile, type Server, startServer } from '../location-query/bench-support';

/** The dispatcher's per-endpoint concurrency (WEBHOOK_ENDPOINT_CONCURRENCY), and the bare loop's per receiver. */
export const ENDPOINT_CONCURRENCY = 16;
/** Events per Kafka send, as location-command's relay publishes them. */
export const PUBLISH_BATCH = 500;
/** The dispatcher as it runs in production, built by the benchmark's run.sh. */
export const DISPATCHER_MAIN = join(
  REPO_ROOT,
  'dist/services/webhook-dispatcher/services/webhook-dispatcher/src/main.js',
);
/**
 * The dispatcher's settings in the benchmarks: the defaults (over the faster ones of the integration tests' world) but
 * for the per-endpoint concurrency and the jitter.
 */
export const DISPATCHER_SETTINGS = {
  LOG_LEVEL: 'warn',
  WEBHOOK_POLL_INTERVAL: '500ms',
  WEBHOOK_CHECKPOINT_INTERVAL: '1s',
  WEBHOOK_REBALANCE_INTERVAL: '2s',
  WEBHOOK_RETRY_JITTER: '0.2',
  WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_CONCURRENCY),
};

export type ReceiverKind = 'healthy' | 'slow' | 'flaky' | 'hanging';

/** One receiver's counts since the last reset (see receivers.ts). */
export interface ReceiverStats {
  kind: ReceiverKind;
  port: number;
  /** Requests received. */
  count: number;
  /** Distinct webhook-ids received. */
  unique: number;
  /** 2xx answers sent: the successful deliveries. */
  ok: number;
  /** 500 answers sent (a flaky receiver's). */
  failed: number;
  /** Requests repeating a webhook-id already answered 2xx. */
  duplicates: number;
  latenciesMs: number[];
  first: number;
  last: number;
}

/** The receivers' process: the ports of each kind and of its control API. */
export interface Receivers extends Record<ReceiverKind, number[]> {
  control: number;
  process: ChildProcess;
}

/** A run's deliveries to the receivers it looks at. */
export interface Result {
  run: string;
  deliveries: number;
  /** From the run's start to the last delivery received. */
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  duplicates: number;
  peakRssMb?: number;
}

/** Starts the receivers' process with as many receivers of each kind as `counts` says (none when not given). */
export async function startReceivers(counts: Partial<Record<ReceiverKind, number>>): Promise<Receivers> {
  const child = spawn(process.execPath, ['-r', REGISTER_SWC, join(__dirname, 'receivers.ts')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      RECEIVERS_HEALTHY: String(counts.healthy ?? 0),
      RECEIVERS_SLOW: String(counts.slow ?? 0),
      RECEIVERS_FLAKY: String(counts.flaky ?? 0),
      RECEIVERS_HANGING: String(counts.hanging ?? 0),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  return { ...(JSON.parse(line) as Omit<Receivers, 'process'>), process: child };
}

/** The receivers' counts; with `latencies`, every latency too (a large reply: only at the end of a run). */
export async function receiverStats(receivers: Receivers, latencies = false): Promise<ReceiverStats[]> {
  const url = `http://127.0.0.1:${receivers.control}/stats${latencies ? '?latencies=1' : ''}`;
  return (await (await fetch(url)).json()) as ReceiverStats[];
}

export async function resetReceivers(receivers: Receivers): Promise<void> {
  await fetch(`http://127.0.0.1:${receivers.control}/reset`, { method: 'POST' });
}

export const ofKind = (all: readonly ReceiverStats[], kind: ReceiverKind): ReceiverStats[] =>
  all.filter((receiver) => receiver.kind === kind);

/** User + system CPU seconds of a process so far (Linux /proc; clock ticks of 10 ms). */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The deliveries `receivers` got since `started` (ms since the epoch): rate, latency percentiles, repeats. */
export function summarise(run: string, started: number, receivers: ReceiverStats[], peakRssMb?: number): Result {
  const deliveries = receivers.reduce((sum, receiver) => sum + receiver.count, 0);
  const last = Math.max(...receivers.map((receiver) => receiver.last));
  const seconds = (last - started) / 1000;
  const latencies = receivers.flatMap((receiver) => receiver.latenciesMs);
  return {
    run,
    deliveries,
    seconds,
    perSecond: deliveries / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    duplicates: receivers.reduce((sum, receiver) => sum + receiver.duplicates, 0),
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
      version: 1,
    },
  });
}

/**
 * The baseline: bare-loop.ts in a process of its own, `requests` POSTs to each of the healthy receivers, as many in
 * flight per receiver as the dispatcher's per-endpoint concurrency, a body of a delivery's size; summarised over the
 * healthy receivers from the loop's start.
 */
export async function bareLoop(run: string, receivers: Receivers, requests: number): Promise<Result> {
  await resetReceivers(receivers);
  const started = Date.now();
  const child = spawn(process.execPath, ['-r', REGISTER_SWC, join(__dirname, 'bare-loop.ts')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      BARE_PORTS: receivers.healthy.join(','),
      BARE_REQUESTS: String(requests),
      BARE_CONCURRENCY: String(ENDPOINT_CONCURRENCY),
      BARE_BODY: sampleBody(),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(createInterface({ input: child.stdout }), 'line');
  await once(child, 'exit');
  return summarise(run, started, ofKind(await receiverStats(receivers, true), 'healthy'));
}

/**
 * Publishes `count` new locations' LOCATION_CREATED events to the world's location topic as location-command's relay
 * publishes them: keyed by the location, the envelope as value, the aggregate version header (1), PUBLISH_BATCH
 * events per send, each event timestamped when its batch is made. Returns when the first batch was started.
 */
export async function publishLocationEvents(bus: KafkaEventBus, count: number): Promise<number> {
  const started = Date.now();
  for (let offset = 0; offset < count; offset += PUBLISH_BATCH) {
    const batch = Array.from({ length: Math.min(PUBLISH_BATCH, count - offset) }, () => {
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
  return started;
}

/**
 * Registers one RSP per port (a CLIENT_REGISTERED with its webhook URL and a secret sealed with the world's key), then
 * starts the dispatcher from dist/ with the world's settings and `nodeArgs`, and waits until it is ready
 * (/health/ready: its intake has joined its group) and has every subscription.
 */
export async function startSubscribedDispatcher(
  world: DispatcherWorld,
  ports: readonly number[],
  nodeArgs: readonly string[],
): Promise<Server> {
  const clients = ports.map(() => randomUUID());
  for (const [index, clientId] of clients.entries()) {
    const webhookUrl = `http://127.0.0.1:${ports[index]}/hooks`;
    await world.publishClient('CLIENT_REGISTERED', { clientId, webhookUrl, secret: aWebhookSecret() }, 1);
  }
  const dispatcher = await startServer([...nodeArgs, DISPATCHER_MAIN], world.env, '/health/ready');
  try {
    for (const clientId of clients) await world.waitForSubscription(clientId, 1);
  } catch (error) {
    await dispatcher.stop();
    throw error;
  }
  return dispatcher;
}
