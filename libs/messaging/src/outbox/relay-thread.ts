import {
  type DynamicModule,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { join } from 'node:path';
import { parentPort, Worker } from 'node:worker_threads';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { createLogger, MetricsRegistry, PinoNestLogger } from '@lx/platform';
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

/** A TypeScript entry (tests, `npm start`) runs through the repository's swc hook, as the services' own do. */
const SWC_HOOK = join(__dirname, '../../../testing/register-swc.js');
const RESTART_DELAY_MS = 1_000;
const STOP_TIMEOUT_MS = 30_000;
const METRICS_TIMEOUT_MS = 2_000;
/**
 * The relay holds one batch at a time: a small young generation keeps the thread's memory small (its garbage is
 * collected more often, cheaply), and the old generation is bounded.
 */
const RELAY_HEAP = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 };

/**
 * Runs the service's OutboxRelay in a worker thread, so reading the log back, Kafka's encoding and their garbage
 * do not take the thread that serves requests and imports (measured: an import spends about 40 % of its time on the
 * relay when it shares the thread). The worker builds its own relay over the same source class, with its own
 * database connections and Kafka producer; leadership, order and checkpoints are the relay's, unchanged. This side
 * forwards the writers' commit signals (coalesced), serves the worker's metrics on `/metrics`, restarts a worker that
 * died after a second, and stops it at shutdown, waiting for its round in flight.
 */
@Injectable()
export class RelayThread implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RelayThread.name);
  private worker?: Worker;
  private exited = Promise.resolve();
  private stopping = false;
  private restartTimer?: NodeJS.Timeout;
  private wakePending = false;
  private nextRequest = 0;
  private readonly requests = new Map<number, (metrics: Metrics) => void>();

  constructor(
    private readonly source: RelaySource,
    metrics: MetricsRegistry,
    @Inject(RELAY_THREAD_OPTIONS) private readonly options: RelayThreadOptions,
  ) {
    metrics.addRemote(() => this.metrics());
  }

  onApplicationBootstrap(): void {
    this.source.signals.on('appended', this.onAppended);
    this.start();
  }

  async onApplicationShutdown(): Promise<void> {
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
    const worker = new Worker(file, {
      workerData: data,
      execArgv: file.endsWith('.ts') ? ['--require', SWC_HOOK] : [],
      resourceLimits: RELAY_HEAP,
    });
    this.worker = worker;
    worker.on('message', (message: FromWorker) => this.requests.get(message.id)?.(message.metrics));
    worker.on('error', (error) => this.logger.error({ err: error.message }, 'Relay thread failed'));
    this.exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        this.worker = undefined;
        for (const answer of this.requests.values()) answer([]);
        if (!this.stopping) {
          this.logger.error({ code }, `Relay thread exited; starting it again in ${RESTART_DELAY_MS} ms`);
          this.restartTimer = setTimeout(() => this.start(), RESTART_DELAY_MS);
        }
        resolve();
      });
    });
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
 * when the service stops. Logs go out as the service's, JSON on stdout.
 */
export async function serveRelayThread(
  module: Type | DynamicModule,
  logging: { service: string; level: Parameters<typeof createLogger>[1] },
): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('serveRelayThread runs in a worker thread started by RelayThread');
  const app = await NestFactory.createApplicationContext(module, {
    logger: new PinoNestLogger(createLogger(logging.service, logging.level)),
  });
  await app.init();
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
      void app.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    }
  });
}
