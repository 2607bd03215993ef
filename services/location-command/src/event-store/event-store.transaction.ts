import type { EntityManager } from 'typeorm';
import { type ExistingGroups, type GroupIds, referencedGroupIds } from '@lx/domain';
import type { BulkAppend, BulkEventAppender } from './bulk-event.appender';
import type { WriteRead } from './decider';
import type { EventAppender } from './event.appender';
import type { AppendContext, StoredStream, StreamAppend, StreamType } from './event-store.types';
import { existingGroupsOf, STORED_STREAMS, type StoredStreamRow, storedStreamOf } from './stored-stream.mapper';

/** One transaction of the event store: read what a decision needs, then append what it decided. */
export class EventStoreTransaction {
  /**
   * @param writable false for reads outside a transaction (`EventStore.reader`), which refuse every append. Events
   * timed at or before the watermark fence are refused by the database itself (the events_after_fence trigger).
   */
  constructor(
    readonly manager: EntityManager,
    private readonly appender: EventAppender,
    private readonly bulkAppender: BulkEventAppender,
    private readonly writable = true,
  ) {}

  /**
   * The stored streams among `streamIds` (lower-case UUIDs), by default locked until commit so no one else writes them
   * meanwhile. Unlocked (`lock: false`), a concurrent write of the same stream makes the append fail on the unique
   * stream version and the transaction is retried: cheaper when most loaded streams will not be written.
   */
  async load(streamIds: readonly string[], options: { lock?: boolean } = {}): Promise<Map<string, StoredStream>> {
    if (streamIds.length === 0) return new Map();
    if (options.lock === false) {
      const rows: StoredStreamRow[] = await this.manager.query(
        `${STORED_STREAMS} WHERE s.stream_id = ANY($1::uuid[])`,
        [streamIds],
      );
      return new Map(rows.map((row) => [row.stream_id, storedStreamOf(row)]));
    }
    // What exists is what the locking statement returns: a stream created by a transaction still running is not
    // there yet, and writing it anyway collides on the stream version. Reading existence from a later snapshot instead
    // would let a writer append to a stream it never locked, and deadlock with the one that did.
    const locked = await this.lockVersions(streamIds);
    if (locked.size === 0) return new Map();
    const rows: StoredStreamRow[] = await this.manager.query(
      `${STORED_STREAMS} WHERE (s.stream_id, s.version) IN (SELECT * FROM unnest($1::uuid[], $2::int[]))`,
      [[...locked.keys()], [...locked.values()]],
    );
    return new Map(rows.map((row) => [row.stream_id, storedStreamOf(row)]));
  }

  /** Locks the state rows of existing streams among `streamIds` until commit, in id order; their current versions. */
  async lockVersions(streamIds: readonly string[]): Promise<Map<string, number>> {
    if (streamIds.length === 0) return new Map();
    const rows: { stream_id: string; version: number }[] = await this.manager.query(
      'SELECT stream_id, version FROM aggregate_state WHERE stream_id = ANY($1::uuid[]) ORDER BY stream_id FOR UPDATE',
      [streamIds],
    );
    return new Map(rows.map((row) => [row.stream_id, row.version]));
  }

  /**
   * Which of the given groups exist (not deleted). Their rows stay locked against change until commit, so a group
   * cannot be deleted between this check and the commit of a location that references it.
   */
  async existingGroups(ids: GroupIds, options: { lock?: boolean } = {}): Promise<ExistingGroups> {
    const all = [...new Set([...ids.locationGroupIds, ...ids.addressGroupIds])];
    const rows: { stream_id: string; stream_type: StreamType }[] =
      all.length === 0
        ? []
        : await this.manager.query(
            `SELECT stream_id, stream_type FROM aggregate_state
              WHERE stream_id = ANY($1::uuid[]) AND stream_type IN ('locationGroup', 'addressGroup') AND NOT deleted
              ORDER BY stream_id ${options.lock === false ? '' : 'FOR SHARE'}`,
            [all],
          );
    return existingGroupsOf(rows.map((row) => [row.stream_id, row.stream_type]));
  }

  /**
   * What a single write is decided on, locked: the stream's state row (FOR UPDATE), the groups named and referenced
   * by the current state (FOR SHARE), and with `countReferences` the locations referencing the stream (a group),
   * counted after its row is locked.
   */
  async readForWrite(
    streamId: string,
    namedGroups: GroupIds,
    options: { countReferences?: 'locationGroup' | 'addressGroup' } = {},
  ): Promise<WriteRead> {
    const stream = (await this.load([streamId])).get(streamId);
    const current = referencedGroupIds(stream?.data);
    const existingGroups = await this.existingGroups({
      locationGroupIds: [...namedGroups.locationGroupIds, ...current.locationGroupIds],
      addressGroupIds: [...namedGroups.addressGroupIds, ...current.addressGroupIds],
    });
    const referencingLocations =
      options.countReferences === undefined ? 0 : await this.referencingLocations(options.countReferences, streamId);
    return { stream, existingGroups, referencingLocations };
  }

  /** How many locations reference the group, counting writes committed before the group's row was locked. */
  async referencingLocations(kind: 'locationGroup' | 'addressGroup', groupId: string): Promise<number> {
    const column = kind === 'locationGroup' ? 'location_group_id' : 'address_group_id';
    const [row] = await this.manager.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM aggregate_state WHERE stream_type = 'location' AND ${column} = $1`,
      [groupId],
    );
    return row?.n ?? 0;
  }

  /**
   * Appends the events with their envelopes and the state rows; nothing for streams without events. Events timed at
   * or before the watermark fence are refused (FencedWriteError, retried by the event store).
   */
  async append(appends: readonly StreamAppend[], context: AppendContext): Promise<void> {
    this.assertWritable();
    await this.appender.append(this.manager, appends, context);
  }

  /** `append` for large batches (imports), serialized beforehand by `BulkEventAppender.prepare`. */
  async appendBulk(bulk: BulkAppend): Promise<void> {
    this.assertWritable();
    await this.bulkAppender.write(this.manager, bulk);
  }

  private assertWritable(): void {
    if (!this.writable) throw new Error('appends need a transaction of EventStore.transaction');
  }
}
