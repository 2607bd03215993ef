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
import { loadInfraEnv, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics, type PrivateTopics } from '../../libs/testing/src/kafka-topics';
import { waitFor } from '../../libs/testing/src/wait-for';
import { prepareDispatcherWorld } from '../../services/webhook-dispatcher/test/support/dispatcher-harness';
import { loadAverage, log, processMemoryMb, type Server, table } from '../location-query/bench-support';
import {
  bareLoop,
  cpuSeconds,
  DISPATCHER_SETTINGS,
  ofKind,
  publishLocationEvents,
  type Receivers,
  receiverStats,
  resetReceivers,
  type Result,
  startReceivers,
  startSubscribedDispatcher,
  summarise,
} from './webhook-bench-support';

const EVENTS = Number(process.env['BENCH_EVENTS'] ?? 20_000);
const RECEIVERS = Number(process.env['BENCH_RECEIVERS'] ?? 5);
const DELIVERY_TIMEOUT_MS = 15 * 60_000;
/** Extra node flags for the dispatcher process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
const NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter((arg) => arg !== '');

interface DispatcherResult extends Result {
  /** Until the intake had appended every event to the notification log. */
  intakeSeconds: number;
  /** CPU time (user + system) of the dispatcher process during the run. */
  cpuSeconds: number;
}
async function dispatcherRun(
  run: string,
  receivers: Receivers,
  topics: PrivateTopics,
  withHanging: boolean,
): Promise<DispatcherResult> {
  // The dispatcher's settings are the defaults but for the loopback receivers, and the run's topics and groups.
  const world = await prepareDispatcherWorld({ ...topics.env, ...DISPATCHER_SETTINGS });
  const { bus, db } = world;
  let dispatcher: Server | undefined;
  try {
    const endpoints = [...receivers.healthy, ...(withHanging ? receivers.hanging : [])];
    dispatcher = await startSubscribedDispatcher(world, endpoints, NODE_ARGS);
    const pid = dispatcher.process.pid!;
    await resetReceivers(receivers);
    log(`${run}: publishing ${EVENTS} location events`);
    const started = await publishLocationEvents(bus, EVENTS);
    const expected = EVENTS * receivers.healthy.length;
    const cpuBefore = await cpuSeconds(pid);
    let peak = 0;
    let intakeSeconds = NaN;
    await waitFor(
      `${expected} deliveries`,
      async () => {
        peak = Math.max(peak, (await processMemoryMb(pid)).peak);
        if (Number.isNaN(intakeSeconds)) {
          const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notifications');
          if (rows[0]!.n >= EVENTS) intakeSeconds = (Date.now() - started) / 1000;
        }
        const healthy = ofKind(await receiverStats(receivers), 'healthy');
        return healthy.reduce((sum, receiver) => sum + receiver.count, 0) >= expected;
      },
      DELIVERY_TIMEOUT_MS,
    );
    const all = ofKind(await receiverStats(receivers, true), 'healthy');
    for (const [index, receiver] of all.entries()) {
      if (receiver.unique !== EVENTS) {
        throw new Error(`receiver ${index} got ${receiver.unique} distinct deliveries, not ${EVENTS}`);
      }
    }
    const cpu = (await cpuSeconds(pid)) - cpuBefore;
    log(
      `${run}: every event in the notification log after ${intakeSeconds.toFixed(1)} s; dispatcher CPU ${cpu.toFixed(1)} s`,
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
  const receivers = await startReceivers({ healthy: RECEIVERS, hanging: 1 });
  try {
    log(`bare loop: ${EVENTS} POSTs to each of ${RECEIVERS} receivers`);
    const bare: Partial<DispatcherResult> & Result = await bareLoop('bare loop (baseline)', receivers, EVENTS);
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
