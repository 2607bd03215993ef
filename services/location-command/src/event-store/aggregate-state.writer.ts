import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { StreamOrderConflictError } from './event-store.errors';
import type { StreamAppend } from './event-store.types';

// unnest: one statement with a fixed number of parameters whatever the batch size (Postgres allows 65,535 bind
// parameters per statement). last_tx: the transaction order guard (see `write`); a row it refuses is not counted.
const UPSERT_STATE = `
  WITH written AS (
    INSERT INTO aggregate_state
      (stream_id, stream_type, version, deleted, location_group_id, address_group_id, serviceability_status,
       updated_at, last_tx)
    SELECT stream_id, stream_type, version, deleted, location_group_id, address_group_id, serviceability_status,
           $8::timestamptz, pg_current_xact_id()
      FROM unnest($1::uuid[], $2::text[], $3::int[], $4::boolean[], $5::uuid[], $6::uuid[], $7::text[])
        AS s(stream_id, stream_type, version, deleted, location_group_id, address_group_id, serviceability_status)
    ON CONFLICT (stream_id) DO UPDATE SET
      version = EXCLUDED.version, deleted = EXCLUDED.deleted, location_group_id = EXCLUDED.location_group_id,
      address_group_id = EXCLUDED.address_group_id, serviceability_status = EXCLUDED.serviceability_status,
      updated_at = EXCLUDED.updated_at, last_tx = EXCLUDED.last_tx
    WHERE aggregate_state.last_tx <= EXCLUDED.last_tx
    RETURNING 1
  )
  SELECT count(*)::int AS written FROM written`;

/** Keeps one aggregate_state row per stream in step with its events; runs in the transaction that appends them. */
@Injectable()
export class AggregateStateWriter {
  /**
   * Upserts the state rows of the streams that get events; streams without events are left as they are.
   *
   * Transaction order guard: the relay publishes the log in transaction-id order, so a stream's events must be in
   * transaction-id order as they are in version order. A transaction gets its id at its first write; one that got it
   * before another writer of the same stream committed (it wrote something else first, then waited for that writer)
   * would append the stream's next version under a lower id. Such a row is not written, and StreamOrderConflictError
   * has the event store run the write again, under a new id drawn after that writer's commit.
   */
  async write(manager: EntityManager, appends: readonly StreamAppend[], timestamp: string): Promise<void> {
    const parameters = aggregateStateParameters(appends);
    if (parameters.streamIds.length === 0) return;
    const [row] = await manager.query<{ written: number }[]>(UPSERT_STATE, [
      parameters.streamIds,
      parameters.streamTypes,
      parameters.versions,
      parameters.deleted,
      parameters.locationGroupIds,
      parameters.addressGroupIds,
      parameters.serviceabilityStatuses,
      timestamp,
    ]);
    if (row?.written !== parameters.streamIds.length) throw new StreamOrderConflictError();
  }
}

/** The column arrays of the state upsert: one entry per stream that gets events, at its version after them. */
export function aggregateStateParameters(appends: readonly StreamAppend[]) {
  const changed = appends.filter((append) => append.events.length > 0);
  return {
    streamIds: changed.map((append) => append.streamId),
    streamTypes: changed.map((append) => append.streamType),
    versions: changed.map((append) => append.fromVersion + append.events.length),
    deleted: changed.map((append) => append.index.deleted ?? false),
    locationGroupIds: changed.map((append) => append.index.locationGroupId ?? null),
    addressGroupIds: changed.map((append) => append.index.addressGroupId ?? null),
    serviceabilityStatuses: changed.map((append) => append.index.serviceabilityStatus ?? null),
  };
}
