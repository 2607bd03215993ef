import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { BulkEventAppender } from './bulk-event.appender';
import { EventAppender } from './event.appender';
import { ConcurrentWriteError, FencedWriteError, isRetryableWrite } from './event-store.errors';
import { EventStoreTransaction } from './event-store.transaction';
import type { StoredStream } from './event-store.types';
import { STORED_STREAMS, type StoredStreamRow, storedStreamOf } from './stored-stream.mapper';
import { assertAfterFence, LOCK_SHARED_FOR_WRITE, watermarkFenceLockKey } from './watermark-fence';

const MAX_ATTEMPTS = 3;

/**
 * The event store: appends events, the aggregate's new state row and the outbox messages in one transaction, so the
 * log, the state writes are validated against, and what reaches Kafka never disagree.
 *
 * Concurrency: a single write locks the state rows of the aggregates it changes (FOR UPDATE) and of the groups it
 * references (FOR SHARE) before deciding, in id order so writers never deadlock. Writers that do not lock (imports),
 * and two writers creating the same new aggregate, collide on the unique (stream_id, stream_version) key instead:
 * one wins, the other is retried from the start and then sees the winner's state.
 *
 * Watermark fence: every transaction first takes the fence lock shared (LOCK_SHARED_FOR_WRITE), and events are
 * appended only with a time after the stored fence, checked under that lock. A write timed at or before it is retried
 * from the start, with a later time, once the clock has passed the fence. So once a fence (FenceWatermarkHandler) has
 * committed watermark W, no change timed at or before W can commit any more.
 */
@Injectable()
export class EventStore {
  private readonly fenceLockKey: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly appender: EventAppender,
    private readonly bulkAppender: BulkEventAppender,
  ) {
    this.fenceLockKey = watermarkFenceLockKey(dataSource);
  }

  /**
   * Runs `work` in a transaction, on `runner`'s connection when given (an import keeps one connection). `work` may run
   * more than once, so it must keep its effects inside the transaction and return what the caller needs.
   */
  async transaction<T>(
    work: (transaction: EventStoreTransaction) => Promise<T>,
    runner?: QueryRunner,
    attempts = MAX_ATTEMPTS,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return runner === undefined
          ? await this.dataSource.transaction(async (manager) => work(await this.open(manager)))
          : await this.onRunner(runner, work);
      } catch (error) {
        if (!isRetryableWrite(error)) throw error;
        // Also before giving up: a caller that decides again on ConcurrentWriteError (an import batch) reads a fresh
        // time, which must then be past the fence.
        if (error instanceof FencedWriteError) await sleep(error.retryDelayMs);
        if (attempt >= attempts) throw new ConcurrentWriteError();
      }
    }
  }

  /** The current state of one stream, read without locking (for reads that only report it). */
  async find(streamId: string): Promise<StoredStream | undefined> {
    const [row] = await this.dataSource.query<StoredStreamRow[]>(`${STORED_STREAMS} WHERE s.stream_id = $1`, [
      streamId,
    ]);
    return row === undefined ? undefined : storedStreamOf(row);
  }

  /** Reads outside any transaction, without locks: for a bulk writer deciding ahead of its write. Cannot append. */
  reader(): EventStoreTransaction {
    return new EventStoreTransaction(this.dataSource.manager, this.appender, this.bulkAppender);
  }

  /** Starts the work of a transaction just begun on `manager`: the fence lock, as its first statement. */
  private async open(manager: EntityManager): Promise<EventStoreTransaction> {
    await manager.query(LOCK_SHARED_FOR_WRITE, [this.fenceLockKey]);
    return new EventStoreTransaction(manager, this.appender, this.bulkAppender, (timestamp) =>
      assertAfterFence(manager, timestamp),
    );
  }

  private async onRunner<T>(runner: QueryRunner, work: (transaction: EventStoreTransaction) => Promise<T>): Promise<T> {
    await runner.startTransaction();
    try {
      const result = await work(await this.open(runner.manager));
      await runner.commitTransaction();
      return result;
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  }
}
