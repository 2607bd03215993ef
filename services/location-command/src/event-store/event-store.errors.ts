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

/**
 * A stream was last written by a transaction with a higher id than the one appending to it now (see
 * AggregateStateWriter.write): retried from the start, like a lost version race, under a new transaction id.
 */
export class StreamOrderConflictError extends Error {
  constructor() {
    super('a stream was last written by a later transaction; the write runs again in a new one');
    this.name = 'StreamOrderConflictError';
  }
}

/** Postgres SQLSTATE of the events_after_fence trigger: the write's time is not after the watermark fence. */
const FENCED_WRITE = 'LXW01';

/** Longest pause before retrying a fenced write: beyond it the clocks disagree and the retry just tries its luck. */
const MAX_FENCE_DELAY_MS = 1_000;

/**
 * A write timed at or before the watermark fence: committing it would put a change at or below a watermark already
 * handed out, after everything up to that watermark was declared published. Never reaches a caller: the event store
 * retries the write with a later time (or, out of attempts, answers ConcurrentWriteError, on which the import decides
 * its batch again with a fresh time).
 */
export class FencedWriteError extends Error {
  constructor(
    readonly timestamp: string,
    readonly fencedAt: Date,
  ) {
    super(`the write's time ${timestamp} is not after the watermark fence ${fencedAt.toISOString()}`);
    this.name = 'FencedWriteError';
  }

  /**
   * How long to wait before the retry, so the clock the write read its time from has moved past the fence: the gap
   * plus a millisecond (a fence and a write in the same millisecond are the usual case), at most a second.
   */
  get retryDelayMs(): number {
    const gap = this.fencedAt.getTime() - Date.parse(this.timestamp);
    if (!Number.isFinite(gap)) return MAX_FENCE_DELAY_MS;
    return Math.min(MAX_FENCE_DELAY_MS, Math.max(0, gap) + 1);
  }
}

/**
 * The FencedWriteError of a refusal by the events_after_fence trigger (its detail: `{"timestamp", "fencedAt"}` as
 * JSON), or undefined for any other error.
 */
export function fencedWriteOf(error: unknown): FencedWriteError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, detail } = error as { code?: unknown; detail?: unknown };
  if (code !== FENCED_WRITE || typeof detail !== 'string') return undefined;
  const { timestamp, fencedAt } = JSON.parse(detail) as { timestamp: string; fencedAt: string };
  return new FencedWriteError(timestamp, new Date(fencedAt));
}

/**
 * Whether a failed write transaction may be run again from the start: a lost version race, a deadlock, a stream
 * last written by a later transaction, a fence.
 */
export function isRetryableWrite(error: unknown): boolean {
  return (
    error instanceof FencedWriteError || error instanceof StreamOrderConflictError || isStreamVersionConflict(error)
  );
}
