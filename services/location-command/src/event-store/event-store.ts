import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { GroupIds } from '@lx/domain';
import { BulkEventAppender } from './bulk-event.appender';
import { EventAppender } from './event.appender';
import { EventLog } from './event-log';
import { ConcurrentWriteError, FencedWriteError, fencedWriteOf, isRetryableWrite } from './event-store.errors';
import { EventStoreTransaction } from './event-store.transaction';
import type { WriteRead } from './decider';
import type { AppendContext, StoredStream, StreamAppend } from './event-store.types';
import { existingGroupsOf, STORED_STREAMS, type StoredStreamRow, storedStreamOf } from './stored-stream.mapper';

/**
 * $1 a stream id, $2 group ids a write names. The stream with its last event, and the groups that exist among those
 * named and those the stream's state row references: what a write is decided on, in one round trip, without locks.
 */
const READ_FOR_WRITE = `
  SELECT s.stream_id, s.stream_type, s.version, s.deleted, e.payload::text AS payload,
         (SELECT coalesce(json_agg(json_build_array(g.stream_id, g.stream_type)), '[]'::json)
            FROM aggregate_state g
           WHERE g.stream_id = ANY($2::uuid[] || ARRAY[s.location_group_id, s.address_group_id])
             AND g.stream_type IN ('locationGroup', 'addressGroup') AND NOT g.deleted) AS groups
    FROM (SELECT $1::uuid AS id) wanted
    LEFT JOIN aggregate_state s ON s.stream_id = wanted.id
    LEFT JOIN events e ON e.stream_id = s.stream_id AND e.stream_version = s.version`;

const MAX_ATTEMPTS = 3;

/**
 * The event store: appends events and the aggregate's new state row in one transaction, so the log and the state
 * writes are validated against never disagree. The log is the outbox: the relay (EventLog) publishes it to Kafka.
 *
 * Concurrency: single writes (DeciderCommandHandler) decide on an unlocked read and append in one statement that
 * checks the stream's version and its groups (`appendIfCurrent`); when that fails they decide again under locks
 * (`transaction` with `EventStoreTransaction.readForWrite`: the stream's row FOR UPDATE, its groups FOR SHARE). Import
 * batches lock the rows they update and check their versions. Every writer writes the state rows before the events,
 * so two writers creating one new stream collide on the state row's key (the loser, retried, sees the winner's state),
 * and versions are backed by the unique (stream_id, stream_version) key.
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

  /**
   * The stream and the groups a single write is decided on (see READ_FOR_WRITE), read without locks: the append
   * (`appendIfCurrent`) checks that they still hold.
   */
  async readForWrite(streamId: string, namedGroups: GroupIds): Promise<WriteRead> {
    const [row] = await this.dataSource.query<(Partial<StoredStreamRow> & { groups: [string, string][] })[]>(
      READ_FOR_WRITE,
      [streamId, [...namedGroups.locationGroupIds, ...namedGroups.addressGroupIds]],
    );
    const stream = row?.stream_id === null || row === undefined ? undefined : storedStreamOf(row as StoredStreamRow);
    return { stream, existingGroups: existingGroupsOf(row?.groups ?? []), referencingLocations: 0 };
  }

  /**
   * Appends one stream's events in one statement, its own transaction, if the stream is still at the version they
   * were decided on and the `required` groups still exist: false, with nothing written, when not. A write timed at or
   * before the watermark fence throws FencedWriteError; a lost race on the stream version may throw its database error
   * instead of answering false (both `isRetryableWrite`).
   */
  async appendIfCurrent(append: StreamAppend, context: AppendContext, required: GroupIds): Promise<boolean> {
    try {
      const appended = await this.appender.appendIfCurrent(this.dataSource.manager, append, context, required);
      if (appended) this.log.appended();
      return appended;
    } catch (error) {
      throw fencedWriteOf(error) ?? error;
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
