import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Location } from '@lx/contracts';

/** A client's Idempotency-Key. */
export interface IdempotencyKeyOf {
  clientId: string;
  key: string;
}

/** Who holds a key: the stream it creates and the hash of the body it was claimed with; `claimed` when just now. */
export interface KeyClaim {
  streamId: string;
  requestHash: string;
  claimed: boolean;
}

/**
 * The idempotency_keys table: a key is claimed for a new stream id before the stream is written (so a retry that
 * arrives while the first request still runs, or after it failed halfway, finds the id to create or to answer with).
 */
@Injectable()
export class IdempotencyKeyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Claims `key` for `streamId` unless a request claimed it after `since`; answers the claim that holds. A claim
   * older than `since` is taken over (the key names a new request). Concurrent claims of one key wait for each other
   * on the primary key, so one wins and the others read its claim.
   */
  async claim(key: IdempotencyKeyOf, requestHash: string, streamId: string, now: Date, since: Date): Promise<KeyClaim> {
    for (;;) {
      // An INSERT … RETURNING: TypeORM answers with the rows (none when the conflict's WHERE kept the row).
      const claimed = await this.dataSource.query<{ stream_id: string }[]>(
        `INSERT INTO idempotency_keys AS k (client_id, idempotency_key, request_hash, stream_id, created_at)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (client_id, idempotency_key) DO UPDATE
             SET request_hash = EXCLUDED.request_hash, stream_id = EXCLUDED.stream_id, created_at = EXCLUDED.created_at
             WHERE k.created_at <= $6
           RETURNING stream_id`,
        [key.clientId, key.key, requestHash, streamId, now, since],
      );
      if (claimed.length > 0) return { streamId, requestHash, claimed: true };
      const [held] = await this.dataSource.query<{ stream_id: string; request_hash: string }[]>(
        `SELECT stream_id, request_hash FROM idempotency_keys WHERE client_id = $1 AND idempotency_key = $2`,
        [key.clientId, key.key],
      );
      // Released in between (its request was refused): claim again.
      if (held !== undefined) return { streamId: held.stream_id, requestHash: held.request_hash, claimed: false };
    }
  }

  /**
   * Gives up a claim whose request was refused, so that the key can name the corrected request; kept when the stream
   * exists after all (a repeat of the request created it meanwhile), or the next repeat would create a second one.
   */
  async release(key: IdempotencyKeyOf, streamId: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys
        WHERE client_id = $1 AND idempotency_key = $2 AND stream_id = $3
          AND NOT EXISTS (SELECT 1 FROM aggregate_state WHERE stream_id = $3)`,
      [key.clientId, key.key, streamId],
    );
  }

  /**
   * Deletes up to `limit` keys claimed at or before `before`, which a new request may claim anyway (see `claim`): they
   * no longer answer anything. Returns how many went. The outer condition is checked again on a row a request claims
   * anew meanwhile (its new created_at), so such a claim is never deleted.
   */
  async purgeClaimedBefore(before: Date, limit: number): Promise<number> {
    const [row] = await this.dataSource.query<{ n: number }[]>(
      `WITH gone AS (
         DELETE FROM idempotency_keys WHERE created_at <= $1 AND (client_id, idempotency_key) IN (
           SELECT client_id, idempotency_key FROM idempotency_keys WHERE created_at <= $1 LIMIT $2)
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [before, limit],
    );
    return row?.n ?? 0;
  }

  /** The location as its creation recorded it (what the first reply answered), if it was created. */
  async createdLocation(streamId: string): Promise<Location | undefined> {
    const [row] = await this.dataSource.query<{ data: Location }[]>(
      `SELECT payload::json -> 'data' AS data FROM events
        WHERE stream_id = $1 AND stream_version = 1 AND event_type = 'LOCATION_CREATED'`,
      [streamId],
    );
    return row?.data;
  }
}
