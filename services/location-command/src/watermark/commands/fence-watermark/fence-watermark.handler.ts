import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import { Histogram } from 'prom-client';
import type { DataSource } from 'typeorm';
import { Clock, MetricsRegistry } from '@lx/platform';
import { type FenceStep, WatermarkFenceTimeoutError } from '../../watermark.errors';
import { WATERMARK_OPTIONS, type WatermarkOptions } from '../../watermark-options';

/**
 * $1 the clock's time. Moves the fence to the later of it and the stored fence (watermarks never go back), through the
 * function that alone may move it, in its own transaction.
 */
const MOVE_FENCE = `SELECT move_watermark_fence($1::timestamptz) AS fenced_at`;

/**
 * A transaction id drawn after the fence was committed: every transaction that could still miss the fence has a lower
 * one. (pg_snapshot_xmax would not do: it is one past the latest *completed* transaction, and a running transaction
 * may hold a higher id.)
 */
const NEXT_TRANSACTION = `SELECT pg_current_xact_id()::text AS next`;

/** $1 a transaction id: whether every transaction below it has ended. */
const ENDED_BELOW = `SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8 AS done`;

/** $1 a transaction id: whether every event of a transaction below it has been published (is behind the checkpoint). */
const PUBLISHED_BELOW = `
  SELECT NOT EXISTS (
    SELECT 1 FROM events e, relay_checkpoint c
     WHERE (e.tx_id, e.global_position) > (c.tx_id, c.position) AND e.tx_id < $1::xid8
  ) AS done`;

/**
 * Hands out a watermark W for chained incremental exports: every location change with updatedAt ≤ W has been
 * published to Kafka when this returns, and every change committed afterwards has updatedAt > W. An export that
 * then reads a read model caught up with the topic's end offsets contains every change up to W, so the next export
 * of the chain, asking for updatedAt > W, misses none. Writers take no lock for it.
 *
 * How: store W as the fence (the clock's time, never below the stored fence) and commit; then draw a transaction id X
 * in a statement of its own; wait until every transaction below X has ended, then until the relay has published every
 * event of a transaction below X.
 *
 * Why it is correct: the database refuses events timed at or before the stored fence (the events_after_fence trigger
 * of the events table), and that check's query takes its snapshot after the writing transaction got its id. So a
 * write timed at or before W that commits took that snapshot before W was committed: its id was handed out before
 * that, and X after it, so its id is below X. Every such write has ended when the first wait is over, and is
 * published when the second is.
 */
@Injectable()
export class FenceWatermarkHandler {
  private readonly duration: Histogram<'outcome'>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(WATERMARK_OPTIONS) private readonly options: WatermarkOptions,
    metrics: MetricsRegistry,
  ) {
    this.duration = new Histogram({
      name: 'watermark_fence_duration_seconds',
      help: 'Time a watermark fence took, waits for writes in flight and for the relay included, by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
  }

  /** The watermark: every change timed at or before it is published. */
  async execute(): Promise<Date> {
    const done = this.duration.startTimer();
    try {
      const [fence] = await this.dataSource.query<{ fenced_at: Date | null }[]>(MOVE_FENCE, [this.clock.now()]);
      if (fence?.fenced_at == null)
        throw new Error('watermark_fence has no row: the migrations seed it, it must not be deleted');
      const [next] = await this.dataSource.query<{ next: string }[]>(NEXT_TRANSACTION);
      await this.waitFor('writes', ENDED_BELOW, next!.next, this.options.lockTimeoutMs);
      await this.waitFor('publication', PUBLISHED_BELOW, next!.next, this.options.publishTimeoutMs);
      done({ outcome: 'fenced' });
      return fence.fenced_at;
    } catch (error) {
      done({ outcome: error instanceof WatermarkFenceTimeoutError ? 'timeout' : 'error' });
      throw error;
    }
  }

  /** Resolves once `condition` holds for transaction id `next`; WatermarkFenceTimeoutError after `timeoutMs`. */
  private async waitFor(step: FenceStep, condition: string, next: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await this.dataSource.query<{ done: boolean }[]>(condition, [next]);
      if (row?.done === true) return;
      if (Date.now() >= deadline) throw new WatermarkFenceTimeoutError(step, timeoutMs);
      await sleep(this.options.pollIntervalMs);
    }
  }
}
