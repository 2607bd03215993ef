import type { ExistingGroups } from '@lx/domain';
import type { StoredStream, StreamType } from './event-store.types';

/**
 * The current state of streams: the state row with the payload of the event it points at. Every event carries the
 * complete resource, so the state row stores no copy of it (a million-row import would otherwise write each document
 * twice); it keeps the version and the facts that reference checks and the retire query filter on. Callers add the
 * WHERE clause.
 */
export const STORED_STREAMS = `
  SELECT s.stream_id, s.stream_type, s.version, s.deleted, e.payload::text AS payload
    FROM aggregate_state s JOIN events e ON e.stream_id = s.stream_id AND e.stream_version = s.version`;

/** A row of `STORED_STREAMS`. */
export interface StoredStreamRow {
  stream_id: string;
  stream_type: StreamType;
  version: number;
  deleted: boolean;
  payload: string;
}

/** The stream of a row: the `data` of the envelope is the resource. */
export function storedStreamOf(row: StoredStreamRow): StoredStream {
  const event = JSON.parse(row.payload) as { data: unknown };
  return {
    streamId: row.stream_id,
    streamType: row.stream_type,
    version: row.version,
    deleted: row.deleted,
    data: event.data,
  };
}

/** The existing groups of `[id, stream type]` pairs (rows of aggregate_state), by kind. */
export function existingGroupsOf(rows: readonly (readonly [string, string])[]): ExistingGroups {
  const ofType = (type: StreamType) => new Set(rows.filter(([, rowType]) => rowType === type).map(([id]) => id));
  return { locationGroups: ofType('locationGroup'), addressGroups: ofType('addressGroup') };
}
