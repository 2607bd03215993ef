import { Injectable } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { EventStore } from '../../../event-store/event-store';
import { ConcurrentWriteError } from '../../../event-store/event-store.errors';
import type { EventStoreTransaction } from '../../../event-store/event-store.transaction';
import type { BatchOutcome } from './import-report';
import { ImportBatchPreparer, type PreparedBatch } from './import-batch.preparer';
import { ImportRowsMetrics } from './import-rows.metrics';

/** More work for the transaction that writes a batch (a full replace records the ids the batch names). */
export type InBatchTransaction = (transaction: EventStoreTransaction, batch: PreparedBatch) => Promise<void>;

/** Attempts decided on unlocked reads; the attempt after them decides under locks. */
const OPTIMISTIC_ATTEMPTS = 2;
/** Tries of the locked attempt: it loses only to a location created meanwhile (a collision on its stream version). */
const LOCKED_TRIES = 3;

/**
 * Writes a prepared batch in one transaction on the import's connection. The locations it updates are locked and
 * must still be at the versions it was decided on, the groups its rows reference are locked (FOR SHARE) and must
 * still exist, and a location created by someone else since the read makes the append fail on the unique stream
 * version. In each case the batch is decided again on fresh state, so nothing stale is ever committed. A watermark
 * fence committed since the batch was timed (in `ImportBatchPreparer`, outside the transaction) refuses its events
 * too (ConcurrentWriteError once the clock is past the fence): decided again, the batch gets a time after it.
 *
 * Deciding outside the lock keeps a batch's read short when nobody else writes its locations. When somebody does
 * (operators editing the same locations through the API as the import runs), it can lose every time; so the last
 * attempt reads and decides inside the transaction, under the locks a single write takes, and cannot lose to a
 * writer of an existing location.
 */
@Injectable()
export class ImportBatchCommitter {
  constructor(
    private readonly store: EventStore,
    private readonly preparer: ImportBatchPreparer,
    private readonly metrics: ImportRowsMetrics,
  ) {}

  /** The outcome of the batch as finally written, counted in the metrics once committed. */
  async commit(prepared: PreparedBatch, runner: QueryRunner, also?: InBatchTransaction): Promise<BatchOutcome> {
    let batch = prepared;
    for (let attempt = 1; ; attempt += 1) {
      const written = await this.store
        .transaction((transaction) => this.write(transaction, batch, also), runner, 1)
        .catch((error: unknown) => {
          if (error instanceof ConcurrentWriteError) return false;
          throw error;
        });
      if (written) return this.counted(batch.outcome);
      if (attempt === OPTIMISTIC_ATTEMPTS) break;
      batch = await this.preparer.prepare(batch.rows, batch.ids, batch.correlationId);
    }
    const { rows, ids, correlationId } = batch;
    const locked = await this.store.transaction(
      async (transaction) => {
        const decided = await this.preparer.prepareLocked(transaction, rows, ids, correlationId);
        await transaction.appendBulk(decided.bulk);
        await also?.(transaction, decided);
        return decided;
      },
      runner,
      LOCKED_TRIES,
    );
    return this.counted(locked.outcome);
  }

  private counted(outcome: BatchOutcome): BatchOutcome {
    this.metrics.countBatch(outcome);
    return outcome;
  }

  /** Writes the batch if what it was decided on still holds; false (nothing written) when it does not. */
  private async write(
    transaction: EventStoreTransaction,
    batch: PreparedBatch,
    also: InBatchTransaction | undefined,
  ): Promise<boolean> {
    // The locations this batch updates are locked and must still be at the versions it was decided on, so no other
    // writer appends to them before this commit (new ones collide on the stream version instead).
    const updated = batch.bulk.appends.filter((append) => append.fromVersion > 0);
    const versions = await transaction.lockVersions(updated.map((append) => append.streamId));
    if (updated.some((append) => versions.get(append.streamId) !== append.fromVersion)) return false;
    const groups = [...batch.usedGroups];
    const existing = await transaction.existingGroups({ locationGroupIds: groups, addressGroupIds: groups });
    if (existing.locationGroups.size + existing.addressGroups.size < groups.length) return false;
    await transaction.appendBulk(batch.bulk);
    await also?.(transaction, batch);
    return true;
  }
}
