import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import { EventBus, type PartitionBounds, storedPositions } from '@lx/messaging';
import { PG_POOL } from '@lx/platform';
import { type PartitionBehind, SnapshotCatchUpError } from '../location.errors';
import { SNAPSHOT_OPTIONS, type SnapshotOptions } from '../snapshot-options';

/**
 * The partitions whose stored next offset (consumer_offsets holds the offset of the next message to apply) has not
 * reached the end offset. A partition without a stored offset is behind unless it holds nothing to apply (its end is
 * its low offset: empty, or emptied by retention).
 */
export function partitionsBehind(
  ends: readonly PartitionBounds[],
  nextOffsets: ReadonlyMap<number, string>,
): PartitionBehind[] {
  const behind: PartitionBehind[] = [];
  for (const { partition, low, high } of ends) {
    const next = nextOffsets.get(partition);
    const caughtUp = next === undefined ? BigInt(high) <= BigInt(low) : BigInt(next) >= BigInt(high);
    if (!caughtUp) behind.push({ partition, applied: next ?? null, end: high });
  }
  return behind;
}

/**
 * Waits until the read model has applied a topic up to its end offsets as they are when the wait starts. The
 * projection stores its offsets in the same transaction as the rows they produced, so once the stored offsets reach
 * those ends, every transaction opened afterwards sees every event published before the wait started.
 */
@Injectable()
export class ProjectionCatchUp {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly bus: EventBus,
    @Inject(SNAPSHOT_OPTIONS) private readonly options: SnapshotOptions,
  ) {}

  /** Resolves once caught up; SnapshotCatchUpError when the ends cannot be read or are not reached in time. */
  async untilCaughtUp(topic: string): Promise<void> {
    const ends = await this.bus.partitionBounds(topic).catch(() => {
      throw SnapshotCatchUpError.eventLogUnavailable(topic);
    });
    const deadline = Date.now() + this.options.catchUpTimeoutMs;
    for (;;) {
      const stored = await storedPositions(this.pool, this.options.projectionGroupId);
      const nextOffsets = new Map(
        stored.filter((position) => position.topic === topic).map((position) => [position.partition, position.offset]),
      );
      const behind = partitionsBehind(ends, nextOffsets);
      if (behind.length === 0) return;
      if (Date.now() >= deadline) throw SnapshotCatchUpError.timedOut(topic, this.options.catchUpTimeoutMs, behind);
      await sleep(this.options.catchUpPollIntervalMs);
    }
  }
}
