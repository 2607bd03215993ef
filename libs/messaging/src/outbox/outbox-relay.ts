import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { DataSource, QueryRunner } from 'typeorm';
import { MetricsRegistry } from '@lx/platform';
import { EventBus, type OutgoingMessage } from '../event-bus';
import { tracePublication } from '../message-tracing';
import { type RelayBatch, type RelayMessage, RelaySource } from './relay-source';

export interface OutboxRelayOptions {
  /** Rows read and published per round. */
  batchSize: number;
  /** Longest wait for new rows when idle (a local append wakes the relay at once). */
  pollIntervalMs: number;
  /**
   * After a round that was not full, the next read waits until this long after the previous one began (0: at once),
   * as Kafka's `linger.ms`: under a stream of single writes a round carries many events instead of one or two, which
   * spares the database, the broker and the CPU a round trip per event, for at most this much more latency.
   */
  lingerMs?: number;
}

export const OUTBOX_RELAY_OPTIONS = Symbol('OUTBOX_RELAY_OPTIONS');

/**
 * Publishes what its RelaySource has committed (the outbox rows of a service, or location-command's event log) to the
 * event bus in the source's order, and records each batch as published.
 *
 * Invariants: a batch is confirmed only after the bus acknowledged it, so a crash between the ack and
 * the confirmation re-publishes it on restart (at-least-once; consumers dedupe by event id) and never
 * loses it. Messages are published strictly in the source's order by one relay per source and schema (a Postgres
 * advisory lock held for the relay's session), and the producer is idempotent with one request in
 * flight, so messages of one key are never reordered.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private stopped = false;
  private running?: Promise<void>;
  /** Ends the current wait: `wakeOnCommit` only while the relay waits for new rows, `wakeOnStop` always. */
  private wakeOnCommit?: () => void;
  private wakeOnStop?: () => void;
  /** A commit was signalled since the last read began: the relay reads again instead of idling. */
  private woken = false;
  private lastRead = { at: 0, full: true };
  private readonly published: Counter;
  private readonly oldestAge: Gauge;
  private readonly delay: Histogram;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    private readonly source: RelaySource,
    metrics: MetricsRegistry,
    @Inject(OUTBOX_RELAY_OPTIONS) private readonly options: OutboxRelayOptions,
  ) {
    const registers = [metrics.registry];
    this.published = new Counter({ name: 'outbox_published_total', help: 'Outbox messages published', registers });
    this.oldestAge = new Gauge({
      name: 'outbox_oldest_unpublished_age_seconds',
      help: 'Age of the oldest unpublished outbox message at the last relay round (0 when none): the relay lag',
      registers,
    });
    this.delay = new Histogram({
      name: 'outbox_publish_delay_seconds',
      help: 'Time from outbox append to publication',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
  }

  onApplicationBootstrap(): void {
    this.source.signals.on('appended', this.onAppended);
    this.running = this.run();
  }

  /** Before any module's shutdown: the relay's round ends while its connection pool and producer are still open. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.source.signals.off('appended', this.onAppended);
    this.wakeOnStop?.();
    await this.running;
  }

  private readonly onAppended = () => {
    this.woken = true;
    this.wakeOnCommit?.();
  };

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.leadAndRelay();
      } catch (error) {
        // Postgres or Kafka went away, or another relay took over: start over (re-reading what was not confirmed) once
        // they are back.
        this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'Outbox relay interrupted');
        await this.pause(1_000);
      }
    }
  }

  private async leadAndRelay(): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    const lockKey = this.source.leaderLock((this.dataSource.options as { schema?: string }).schema ?? 'public');
    try {
      if (!(await this.acquireLeadership(runner, lockKey))) return;
      await this.source.resume(runner);
      let batch = await this.read(runner);
      while (!this.stopped) {
        const oldest = batch.messages[0]?.createdAt ?? batch.oldestWaiting;
        this.oldestAge.set(oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0);
        if (batch.messages.length === 0) {
          await this.idle(this.options.pollIntervalMs);
          if (!this.stopped) batch = await this.read(runner);
          continue;
        }
        // The next batch is read while this one is on its way to the bus; it is confirmed only after the ack, and
        // batches are confirmed in the order they were read.
        const [next, sent] = await Promise.allSettled([this.read(runner, batch), this.publish(batch.messages)]);
        if (sent.status === 'rejected') throw sent.reason;
        if (next.status === 'rejected') throw next.reason;
        await this.source.confirm(runner, batch);
        const now = Date.now();
        for (const message of batch.messages) this.delay.observe((now - message.createdAt.getTime()) / 1000);
        this.published.inc(batch.messages.length);
        batch = next.value;
      }
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]).catch(() => undefined);
      await runner.release();
    }
  }

  /** The next batch; a commit signalled from now on makes an empty answer read again instead of idling. */
  private async read(runner: QueryRunner, after?: RelayBatch): Promise<RelayBatch> {
    const linger = this.lastRead.full ? 0 : this.lastRead.at + (this.options.lingerMs ?? 0) - Date.now();
    if (linger > 0) await this.pause(linger);
    this.lastRead.at = Date.now();
    this.woken = false;
    const batch = await this.source.read(runner, this.options.batchSize, after);
    this.lastRead.full = batch.messages.length >= this.options.batchSize;
    return batch;
  }

  /** Waits until this session holds the schema's relay lock; false if stopped meanwhile. */
  private async acquireLeadership(runner: QueryRunner, lockKey: string): Promise<boolean> {
    while (!this.stopped) {
      const [row] = (await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [lockKey])) as {
        locked: boolean;
      }[];
      if (row?.locked) return true;
      // Another replica leads and reports the lag: a value left from when this one led would hold an alert up.
      this.oldestAge.set(0);
      await this.pause(1_000);
    }
    return false;
  }

  /**
   * Publishes messages in order: consecutive messages of one topic go out as one acknowledged send, each message that
   * carries a trace context under a publication span of its own (message-tracing.ts).
   */
  private async publish(batch: readonly RelayMessage[]): Promise<void> {
    let start = 0;
    while (start < batch.length) {
      const topic = batch[start]!.topic;
      let end = start;
      while (end < batch.length && batch[end]!.topic === topic) end += 1;
      const messages: OutgoingMessage[] = batch
        .slice(start, end)
        .map((message) => ({ key: message.key, value: message.value, headers: message.headers }));
      const traced = tracePublication(this.bus.topicOnLog(topic), messages);
      try {
        await this.bus.publish(topic, traced.messages);
        traced.end();
      } catch (error) {
        traced.end(error);
        throw error;
      }
      start = end;
    }
  }

  /** Waits for new rows: up to `ms` or until a commit is signalled; not at all if one was since the last read began. */
  private idle(ms: number): Promise<void> {
    if (this.woken) return Promise.resolve();
    return this.wait(ms, true);
  }

  /** Waits `ms` whatever commits happen (after a failure, or while another relay leads); only a stop ends it early. */
  private pause(ms: number): Promise<void> {
    return this.wait(ms, false);
  }

  private wait(ms: number, untilCommit: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeOnStop = done;
      if (untilCommit) this.wakeOnCommit = done;
    }).finally(() => {
      this.wakeOnStop = undefined;
      this.wakeOnCommit = undefined;
    });
  }
}
