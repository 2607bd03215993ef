import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { BulkEventAppender } from './bulk-event.appender';
import { EventAppender } from './event.appender';
import { ConcurrentWriteError, isStreamVersionConflict } from './event-store.errors';
import { EventStoreTransaction } from './event-store.transaction';
import type { StoredStream } from './event-store.types';
import { STORED_STREAMS, type StoredStreamRow, storedStreamOf } from './stored-stream.mapper';

const MAX_ATTEMPTS = 3;

/**
 * The event store: appends events, the aggregate's new state row and the outbox messages in one transaction, so the
 * log, the state writes are validated against, and what reaches Kafka never disagree.
 *
 * Concurrency: a single write locks the state rows of the aggregates it changes (FOR UPDATE) and of the groups it
 * references (FOR SHARE) before deciding, in id order so writers never deadlock. Writers that do not lock (imports),
 * and two writers creating the same new aggregate, collide on the unique (stream_id, stream_version) key instead:
 * one wins, the other is retried from the start and then sees the winner's state.
 */
@Injectable()
export class EventStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly appender: EventAppender,
    private readonly bulkAppender: BulkEventAppender,
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
        return runner === undefined
          ? await this.dataSource.transaction((manager) => work(this.transactionOn(manager)))
          : await this.onRunner(runner, work);
      } catch (error) {
        if (!isStreamVersionConflict(error)) throw error;
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

  /** Reads outside any transaction, without locks: for a bulk writer deciding ahead of its write. */
  reader(): EventStoreTransaction {
    return this.transactionOn(this.dataSource.manager);
  }

  private transactionOn(manager: EntityManager): EventStoreTransaction {
    return new EventStoreTransaction(manager, this.appender, this.bulkAppender);
  }

  private async onRunner<T>(runner: QueryRunner, work: (transaction: EventStoreTransaction) => Promise<T>): Promise<T> {
    await runner.startTransaction();
    try {
      const result = await work(this.transactionOn(runner.manager));
      await runner.commitTransaction();
      return result;
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  }
}
