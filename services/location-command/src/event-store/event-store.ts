import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { BulkEventAppender } from './bulk-event.appender';
import { EventAppender } from './event.appender';
import { EventLog } from './event-log';
import { ConcurrentWriteError, FencedWriteError, fencedWriteOf, isRetryableWrite } from './event-store.errors';
import { EventStoreTransaction } from './event-store.transaction';
import type { StoredStream } from './event-store.types';
import { STORED_STREAMS, type StoredStreamRow, storedStreamOf } from './stored-stream.mapper';

const MAX_ATTEMPTS = 3;

/**
 * The event store: appends events and the aggregate's new state row in one transaction, so the log and the state
 * writes are validated against never disagree. The log is the outbox: the relay (EventLog) publishes it to Kafka.
 *
 * Concurrency: a single write locks the state rows of the aggregates it changes (FOR UPDATE) and of the groups it
 * references (FOR SHARE) before deciding, in id order so writers never deadlock. Writers that do not lock (imports),
 * and two writers creating the same new aggregate, collide on the unique (stream_id, stream_version) key instead:
 * one wins, the other is retried from the start and then sees the winner's state.
 *
 * Watermark fence: the database refuses events timed at or before the stored fence (the events_after_fence trigger,
 * checked after the transaction got its id); such a write is retried from the start, with a later time, once the
 * clock has passed the fence. Writers take no lock for it: FenceWatermarkHandler waits for the transactions in flight
 * instead.
 */
@Injectable()
export class EventStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly appender: EventAppender,
    private readonly bulkAppender: BulkEventAppender,
    private readonly log: EventLog,
  ) {}

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
        const result =
          runner === undefined
            ? await this.dataSource.transaction((manager) => work(this.open(manager)))
            : await this.onRunner(runner, work);
        this.log.appended();
        return result;
      } catch (caught) {
        const error = fencedWriteOf(caught) ?? caught;
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
    return new EventStoreTransaction(this.dataSource.manager, this.appender, this.bulkAppender, false);
  }

  private open(manager: EntityManager): EventStoreTransaction {
    return new EventStoreTransaction(manager, this.appender, this.bulkAppender);
  }

  private async onRunner<T>(runner: QueryRunner, work: (transaction: EventStoreTransaction) => Promise<T>): Promise<T> {
    await runner.startTransaction();
    try {
      const result = await work(this.open(runner.manager));
      await runner.commitTransaction();
      return result;
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  }
}
