import { ConflictError } from '@lx/domain';

/** Postgres SQLSTATE unique_violation, and the constraint that makes two writers of one stream version collide. */
const UNIQUE_VIOLATION = '23505';
const STREAM_VERSION_KEY = 'events_stream_id_stream_version_key';
/**
 * Postgres SQLSTATE deadlock_detected: possible when a writer that did not lock a stream (an import) and one that did
 * both append to it; Postgres aborts one of them, which is retried like a lost version race.
 */
const DEADLOCK_DETECTED = '40P01';

/** A write lost the race for a stream version as often as it was allowed to retry. */
export class ConcurrentWriteError extends ConflictError {
  constructor() {
    super('the resource was written concurrently several times; retry the request');
  }
}

/** Whether a database error means another writer got to a stream version first, so the write may be retried. */
export function isStreamVersionConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return (code === UNIQUE_VIOLATION && constraint === STREAM_VERSION_KEY) || code === DEADLOCK_DETECTED;
}
