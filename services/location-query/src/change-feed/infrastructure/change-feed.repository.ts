import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { checkOut, PG_POOL, ReadPool } from '@lx/platform';
import type { ChangePosition } from '../domain/change-cursor';

/** One stored change: its position and the delivery body as the text the webhook sends. */
export interface StoredChange {
  txId: string;
  seq: string;
  body: string;
}

/** What one read of the feed saw, all in one snapshot. */
export interface ChangeRead {
  epoch: string;
  /** The position up to which changes have been purged: the oldest position a reader may still start from. */
  purged: Omit<ChangePosition, 'epoch'>;
  /** Up to `limit` changes after the start position, in feed order. */
  changes: StoredChange[];
}

/** What the SRE watches of the feed. */
export interface ChangeFeedStats {
  rows: number;
  /** When the oldest retained change happened; undefined when the feed is empty. */
  oldestOccurredAt?: Date;
}

/**
 * $1, $2 the position to read after, or NULL for the position purged up to (the oldest retained); $3 how many.
 * One statement, so the state row and the changes are of one snapshot: a purge commits both together. Only rows of
 * transactions below the snapshot's xmin are read: those have all ended, and any transaction still to commit has an
 * id at or above it, so no row can ever commit behind a position this returns (the event log's rule, EVENTS_AFTER).
 * Read-only, the statement takes no transaction id and holds nobody's xmin back.
 */
const CHANGES_AFTER = `
  SELECT s.epoch, s.purged_tx_id::text AS purged_tx, s.purged_seq::text AS purged_seq,
         c.tx_id::text AS tx, c.seq::text AS seq, c.body::text AS body
    FROM change_feed_state s
    LEFT JOIN LATERAL (
      SELECT l.tx_id, l.seq, l.body FROM location_changes l
       WHERE (l.tx_id, l.seq) > (coalesce($1::xid8, s.purged_tx_id), coalesce($2::bigint, s.purged_seq))
         AND l.tx_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY l.tx_id, l.seq
       LIMIT $3
    ) c ON true
   ORDER BY c.tx_id, c.seq`;

/**
 * $1, $2 the position purged up to; $3 how many. The next retained rows in feed order, each with whether it may go:
 * it happened before the cutoff ($4) and its transaction has ended with every one before it.
 */
const PURGE_CANDIDATES = `
  SELECT tx_id::text AS tx, seq::text AS seq,
         occurred_at < $4 AND tx_id < pg_snapshot_xmin(pg_current_snapshot()) AS expired
    FROM location_changes
   WHERE (tx_id, seq) > ($1::xid8, $2::bigint)
   ORDER BY tx_id, seq
   LIMIT $3`;

/**
 * The feed's storage: reads for RSPs, and the purge. Raw SQL through node-postgres: the reads are row-comparison range
 * scans of the primary key that return stored text, with no entity mapping. RSPs' reads are scans of the RSP-facing
 * ReadPool (statement timeout, one of its scan slots); the purge and the metrics use the service's own pool.
 */
@Injectable()
export class ChangeFeedRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly reads: ReadPool,
  ) {}

  /** The changes after `after` (or after the oldest retained position), with the feed's epoch and purge position. */
  async read(after: Omit<ChangePosition, 'epoch'> | undefined, limit: number): Promise<ChangeRead> {
    const { rows } = await this.reads.scan((session) =>
      session.query<{
        epoch: string;
        purged_tx: string;
        purged_seq: string;
        tx: string | null;
        seq: string | null;
        body: string | null;
      }>(CHANGES_AFTER, [after?.txId ?? null, after?.seq ?? null, limit]),
    );
    const state = rows[0];
    if (state === undefined) throw new Error('change_feed_state has no row: the migrations seed it');
    return {
      epoch: state.epoch,
      purged: { txId: state.purged_tx, seq: state.purged_seq },
      changes: rows.filter((row) => row.tx !== null).map((row) => ({ txId: row.tx!, seq: row.seq!, body: row.body! })),
    };
  }

  /**
   * Deletes, in feed order, the leading changes that happened before `cutoff`, at most `maxRows`, and moves the purge
   * position to the last one deleted: the deleted rows are always a prefix of the feed, so a cursor at or after the
   * purge position has lost nothing. Stops at the first change that must stay (too young, or of a transaction not
   * below xmin), even if older ones follow it. Serialised by the state row's lock, so replicas may run it at once.
   * Resolves with the number of changes deleted.
   */
  async purge(cutoff: Date, maxRows: number): Promise<number> {
    const { client, release } = await checkOut(this.pool);
    try {
      await client.query('BEGIN');
      const { rows: state } = await client.query<{ tx: string; seq: string }>(
        `SELECT purged_tx_id::text AS tx, purged_seq::text AS seq FROM change_feed_state FOR UPDATE`,
      );
      const from = state[0];
      if (from === undefined) throw new Error('change_feed_state has no row: the migrations seed it');
      const { rows } = await client.query<{ tx: string; seq: string; expired: boolean }>(PURGE_CANDIDATES, [
        from.tx,
        from.seq,
        maxRows,
        cutoff,
      ]);
      const firstKept = rows.findIndex((row) => !row.expired);
      const doomed = firstKept < 0 ? rows : rows.slice(0, firstKept);
      const last = doomed.at(-1);
      if (last === undefined) {
        await client.query('COMMIT');
        return 0;
      }
      const deleted = await client.query(
        `DELETE FROM location_changes
          WHERE (tx_id, seq) > ($1::xid8, $2::bigint) AND (tx_id, seq) <= ($3::xid8, $4::bigint)`,
        [from.tx, from.seq, last.tx, last.seq],
      );
      await client.query(
        `UPDATE change_feed_state SET purged_tx_id = $1::xid8, purged_seq = $2::bigint, purged_at = clock_timestamp()`,
        [last.tx, last.seq],
      );
      await client.query('COMMIT');
      return deleted.rowCount ?? doomed.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      release();
    }
  }

  /** Rows (PostgreSQL's running estimate: counting would scan the table) and the oldest retained change. */
  async stats(): Promise<ChangeFeedStats> {
    const [rows, oldest] = await Promise.all([
      this.pool.query<{ rows: string | null }>(
        `SELECT n_live_tup::text AS rows FROM pg_stat_user_tables WHERE relid = 'location_changes'::regclass`,
      ),
      this.pool.query<{ occurred_at: Date }>(`SELECT occurred_at FROM location_changes ORDER BY tx_id, seq LIMIT 1`),
    ]);
    const oldestOccurredAt = oldest.rows[0]?.occurred_at;
    return { rows: Number(rows.rows[0]?.rows ?? 0), ...(oldestOccurredAt ? { oldestOccurredAt } : {}) };
  }
}
