import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { join } from 'node:path';
import { parentPort, Worker } from 'node:worker_threads';
import { Counter, Gauge, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import {
  createLogger,
  MetricsRegistry,
  PinoNestLogger,
  startTracing,
  stopTracing,
  type TracingConfig,
} from '@lx/platform';
import { RelaySource } from './relay-source';

/** Where the relay runs when it runs in a worker thread. */
export interface RelayThreadOptions {
  /** The worker's entry: a file that calls `serveRelayThread` with a module of the relay over the same source. */
  file: string;
  /** The worker's `workerData`: plain values (the relay's database, Kafka and batch settings). */
  data: unknown;
}

export const RELAY_THREAD_OPTIONS = Symbol('RELAY_THREAD_OPTIONS');

type Metrics = MetricObjectWithValues<MetricValue<string>>[];
type ToWorker = { type: 'wake' } | { type: 'metrics'; id: number } | { type: 'stop' };
type FromWorker = { type: 'metrics'; id: number; metrics: Metrics };

/**
 * A TypeScript entry (a service run from source: tests, spawned test processes) runs through the repository's swc
 * hook, as the service itself does; a built entry (.js) inherits the service's node flags only.
 */
const SWC_HOOK = join(__dirname, '../../../testing/register-swc.js');
/** A thread that died is started again after 1 s, doubling up to a minute while it keeps dying within a minute. */
const RESTART_DELAY_MS = { first: 1_000, max: 60_000, healthyAfter: 60_000 };
/** Below the pod's grace period after its preStop pause, so a stuck thread is ended before the pod is killed. */
const STOP_TIMEOUT_MS = 20_000;
const METRICS_TIMEOUT_MS = 2_000;
/**
 * The relay holds a batch or two at a time: a small young generation keeps the thread's memory small (its garbage is
 * collected more often, cheaply). The old generation takes the process's limit (`--max-old-space-size`), as the
 * main thread does, so a batch that fits the relay in the main thread fits it here.
 */
const RELAY_HEAP = { maxYoungGenerationSizeMb: 8 };

/**
 * Runs the service's OutboxRelay in a worker thread, so reading the log back, Kafka's encoding and their garbage
 * do not take the thread that serves requests and imports (measured: an import without a relay takes about 40 % less
 * time than with the relay in its thread; with the relay in a worker, 1.14× as fast on two cores). The worker builds its own relay over the same source class, with its own
 * database connections and Kafka producer; leadership, order and checkpoints are the relay's, unchanged. This side
 * forwards the writers' commit signals (coalesced), serves the worker's metrics on `/metrics`, restarts a worker that
 * died after a second, and stops it at shutdown, waiting for its round in flight.
 */
@Injectable()
export class RelayThread implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RelayThread.name);
  private worker?: Worker;
  private exited = Promise.resolve();
  private stopping = false;
  private restartTimer?: NodeJS.Timeout;
  private restartDelayMs = RESTART_DELAY_MS.first;
  private readonly up: Gauge;
  private readonly restarts: Counter;
  private wakePending = false;
  private nextRequest = 0;
  private readonly requests = new Map<number, (metrics: Metrics) => void>();

  constructor(
    private readonly source: RelaySource,
    metrics: MetricsRegistry,
    @Inject(RELAY_THREAD_OPTIONS) private readonly options: RelayThreadOptions,
  ) {
    const registers = [metrics.registry];
    this.up = new Gauge({
      name: 'relay_thread_up',
      help: 'Whether the worker thread of the relay is running (1) or down and to be started again (0)',
      registers,
    });
    this.restarts = new Counter({
      name: 'relay_thread_restarts_total',
      help: 'Worker threads of the relay started again after one died',
      registers,
    });
    metrics.addRemote(() => this.metrics());
  }

  onApplicationBootstrap(): void {
    this.source.signals.on('appended', this.onAppended);
    this.start();
  }

  /** Before any module's shutdown, as the relay itself stops: the thread's round ends first. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.source.signals.off('appended', this.onAppended);
    const worker = this.worker;
    if (worker === undefined) return;
    this.post({ type: 'stop' });
    const timeout = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timeout);
  }

  /** Commits in one turn of the event loop wake the worker once. */
  private readonly onAppended = () => {
    if (this.wakePending) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      this.post({ type: 'wake' });
    });
  };

  private start(): void {
    const { file, data } = this.options;
    const execArgv = file.endsWith('.ts') ? [...process.execArgv, '--require', SWC_HOOK] : undefined;
    const worker = new Worker(file, { workerData: data, execArgv, resourceLimits: RELAY_HEAP });
    const startedAt = Date.now();
    this.worker = worker;
    this.up.set(1);
    worker.on('message', (message: FromWorker) => this.requests.get(message.id)?.(message.metrics));
    worker.on('error', (error) => this.logger.error({ err: error.stack ?? error.message }, 'Relay thread failed'));
    this.exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        this.worker = undefined;
        this.up.set(0);
        for (const answer of this.requests.values()) answer([]);
        if (!this.stopping) this.restartLater(code, Date.now() - startedAt);
        resolve();
      });
    });
  }

  private restartLater(code: number, ranMs: number): void {
    if (ranMs >= RESTART_DELAY_MS.healthyAfter) this.restartDelayMs = RESTART_DELAY_MS.first;
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(delay * 2, RESTART_DELAY_MS.max);
    this.logger.error({ code, ranMs }, `Relay thread exited; starting it again in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      this.restarts.inc();
      this.start();
    }, delay);
  }

  private post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  /** The worker's metrics; none while it is not running or does not answer in time. */
  private metrics(): Promise<Metrics> {
    if (this.worker === undefined) return Promise.resolve([]);
    const id = (this.nextRequest += 1);
    return new Promise<Metrics>((resolve) => {
      const timer = setTimeout(() => answer([]), METRICS_TIMEOUT_MS);
      const answer = (metrics: Metrics) => {
        clearTimeout(timer);
        this.requests.delete(id);
        resolve(metrics);
      };
      this.requests.set(id, answer);
      this.post({ type: 'metrics', id });
    });
  }
}

/**
 * The worker's side of RelayThread: starts `module` (a relay over the same RelaySource, with MetricsModule,
 * DatabaseModule and MessagingModule), wakes it on the service's commits, answers metric requests, and closes it
 * when the service stops. Logs go out as the service's, JSON on stdout; spans too, when the service traces (a
 * thread has its own tracer provider).
 */
export async function serveRelayThread(
  module: Type | DynamicModule,
  settings: { service: string; level: Parameters<typeof createLogger>[1]; tracing?: TracingConfig },
): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('serveRelayThread runs in a worker thread started by RelayThread');
  if (settings.tracing !== undefined) startTracing(settings.tracing, settings.service);
  const app = await NestFactory.createApplicationContext(module, {
    logger: new PinoNestLogger(createLogger(settings.service, settings.level)),
  });
  const source = app.get(RelaySource);
  const metrics = app.get(MetricsRegistry);
  port.on('message', (message: ToWorker) => {
    if (message.type === 'wake') {
      source.signals.emit('appended');
    } else if (message.type === 'metrics') {
      void metrics.registry.getMetricsAsJSON().then((values) => {
        const answer: FromWorker = { type: 'metrics', id: message.id, metrics: values };
        port.postMessage(answer);
      });
    } else {
      void app
        .close()
        .then(() => stopTracing())
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    }
  });
}
