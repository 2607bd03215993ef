import type { DataSource, EntityManager } from 'typeorm';
import { FencedWriteError } from './event-store.errors';

/**
 * The advisory lock that orders writes and watermark fences: every write transaction holds it shared from its first
 * statement to its end, a fence takes it exclusively. Two-key form, so it shares no key with the single-key advisory
 * locks of migrations and the outbox relay; the second key is the schema, so services (and tests) on other schemas
 * of the same database never wait for each other.
 */
const LOCK_CLASS = 1_279_787_347;

/** Taken by every write transaction as its first statement: $1 the lock key of `watermarkFenceLockKey`. */
export const LOCK_SHARED_FOR_WRITE = `SELECT pg_advisory_xact_lock_shared(${LOCK_CLASS}, hashtext($1))`;

/** Taken by a fence: waits until every write transaction holding the lock has ended, and holds new ones back. */
export const LOCK_EXCLUSIVE_FOR_FENCE = `SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext($1))`;

/**
 * $1 a write's timestamp: whether it is after the fence. Its own statement after the lock statement: under READ
 * COMMITTED (the event store's level) a statement's snapshot is taken when it starts, so the lock statement's own
 * snapshot predates its wait and could miss a fence committed meanwhile; a later statement sees it.
 */
const AFTER_FENCE = 'SELECT $1::timestamptz > fenced_at AS open, fenced_at FROM watermark_fence';

/** The key of the fence lock of the schema `dataSource` works in. */
export function watermarkFenceLockKey(dataSource: DataSource): string {
  const options = dataSource.options as { schema?: string } | undefined;
  return `watermark-fence:${options?.schema ?? 'public'}`;
}

/**
 * Throws FencedWriteError unless `timestamp` is strictly after the stored fence. Run under the shared lock: no fence
 * can commit between this check and the end of the transaction, so the answer holds until commit.
 */
export async function assertAfterFence(manager: EntityManager, timestamp: string): Promise<void> {
  const [row] = await manager.query<{ open: boolean; fenced_at: Date }[]>(AFTER_FENCE, [timestamp]);
  if (row === undefined) throw new Error('watermark_fence has no row: the migrations seed it, it must not be deleted');
  if (!row.open) throw new FencedWriteError(timestamp, row.fenced_at);
}
