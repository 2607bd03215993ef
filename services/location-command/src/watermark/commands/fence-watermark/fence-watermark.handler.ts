import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import { Histogram } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import { Clock, MetricsRegistry } from '@lx/platform';
import { LOCK_EXCLUSIVE_FOR_FENCE, watermarkFenceLockKey } from '../../../event-store/watermark-fence';
import { WatermarkFenceTimeoutError } from '../../watermark.errors';
import { WATERMARK_OPTIONS, type WatermarkOptions } from '../../watermark-options';

/** Postgres SQLSTATE lock_not_available: the lock_timeout of the fence ran out. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * $1 the clock's time. Moves the fence to the later of it and the stored fence (watermarks never go back, even when
 * clocks do), and reads the last outbox position. Its own statement after the lock, so both see every write that
 * committed before the lock was granted.
 */
const MOVE_FENCE = `
  WITH fence AS (
    UPDATE watermark_fence SET fenced_at = greatest(fenced_at, $1::timestamptz) RETURNING fenced_at
  )
  SELECT fence.fenced_at AS watermark, (SELECT coalesce(max(position), 0) FROM outbox)::text AS position FROM fence`;

/** $1 an outbox position: whether a row at or before it is still unpublished (the relay's partial index). */
const UNPUBLISHED_UP_TO = `SELECT EXISTS (SELECT 1 FROM outbox WHERE published_at IS NULL AND position <= $1) AS pending`;

/**
 * Hands out a watermark W for chained incremental exports: every location change with updatedAt ≤ W has been
 * published to Kafka when this returns, and every change committed afterwards has updatedAt > W. An export that
 * then reads a read model caught up with the topic's end offsets contains every change up to W, so the next export
 * of the chain, asking for updatedAt > W, misses none.
 *
 * How: in one transaction, take the fence lock exclusively (it waits until every write transaction, which holds it
 * shared from its first statement, has committed or aborted, and holds new ones back), set W to the clock's time
 * (never below the stored fence), read P, the last outbox position, store W as the fence, commit. Then wait until no
 * outbox row at or before P is unpublished.
 *
 * Why it is correct: a write whose transaction took the shared lock before the fence has committed when the fence
 * gets its lock, so its outbox rows are at positions ≤ P. A write that takes the shared lock after the fence
 * committed reads fenced_at = W under its lock and commits only events timed after W (EventStore retries it with a
 * later time otherwise). So every change with updatedAt ≤ W is in the outbox at a position ≤ P, and all of those
 * are published (acknowledged by Kafka, which the relay waits for before marking a row) when this returns.
 */
@Injectable()
export class FenceWatermarkHandler {
  private readonly lockKey: string;
  private readonly duration: Histogram<'outcome'>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(WATERMARK_OPTIONS) private readonly options: WatermarkOptions,
    metrics: MetricsRegistry,
  ) {
    this.lockKey = watermarkFenceLockKey(dataSource);
    this.duration = new Histogram({
      name: 'watermark_fence_duration_seconds',
      help: 'Time a watermark fence took, waits for writes in flight and for the outbox relay included, by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
  }

  /** The watermark: every change timed at or before it is published. */
  async execute(): Promise<Date> {
    const done = this.duration.startTimer();
    try {
      const { watermark, position } = await this.dataSource.transaction((manager) => this.fence(manager));
      await this.published(position);
      done({ outcome: 'fenced' });
      return watermark;
    } catch (error) {
      done({ outcome: error instanceof WatermarkFenceTimeoutError ? 'timeout' : 'error' });
      throw error;
    }
  }

  private async fence(manager: EntityManager): Promise<{ watermark: Date; position: string }> {
    // Only this transaction's lock waits are bounded; writers keep the server's setting.
    await manager.query(`SELECT set_config('lock_timeout', $1, true)`, [`${this.options.lockTimeoutMs}ms`]);
    try {
      await manager.query(LOCK_EXCLUSIVE_FOR_FENCE, [this.lockKey]);
    } catch (error) {
      if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) {
        throw new WatermarkFenceTimeoutError('writes', this.options.lockTimeoutMs);
      }
      throw error;
    }
    const [row] = await manager.query<{ watermark: Date; position: string }[]>(MOVE_FENCE, [this.clock.now()]);
    if (row === undefined)
      throw new Error('watermark_fence has no row: the migrations seed it, it must not be deleted');
    return row;
  }

  /** Resolves once every outbox row at or before `position` is published. */
  private async published(position: string): Promise<void> {
    const deadline = Date.now() + this.options.publishTimeoutMs;
    for (;;) {
      const [row] = await this.dataSource.query<{ pending: boolean }[]>(UNPUBLISHED_UP_TO, [position]);
      if (row?.pending !== true) return;
      if (Date.now() >= deadline) throw new WatermarkFenceTimeoutError('publication', this.options.publishTimeoutMs);
      await sleep(this.options.pollIntervalMs);
    }
  }
}
