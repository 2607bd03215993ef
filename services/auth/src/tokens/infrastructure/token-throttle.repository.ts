import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { FailureCounter } from '../domain/failure-window';

interface CounterRow {
  window_start: Date;
  failures: number;
  pending: number;
}

/** How an attempt that was begun ended. */
export type AttemptEnd = 'failed' | 'succeeded-clear' | 'succeeded-keep' | 'not-checked';

/** A window of `windowSeconds` that opened at or before `$2 - windowSeconds` has ended. */
const ENDED = `t.window_start <= $2::timestamptz - make_interval(secs => $3)`;

/**
 * The token endpoint's counters (token_throttle, one per subject: failures and attempts under way in a fixed window)
 * and the sources each client has authenticated from (token_known_sources), in Postgres so the limits hold across
 * replicas. Raw SQL: beginning an attempt is one atomic upsert that opens a new window when the old one has ended and
 * returns the counter, which TypeORM cannot express.
 */
@Injectable()
export class TokenThrottleRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Counts one attempt under way against `subject` in the window open at `now` (a new one if the last has ended) and
   * returns the counter with it: before the secret is checked, so parallel attempts cannot all pass a check first.
   */
  async begin(subject: string, now: Date, windowSeconds: number): Promise<FailureCounter> {
    const rows: CounterRow[] = await this.dataSource.query(
      `INSERT INTO token_throttle AS t (subject, window_start, failures, pending) VALUES ($1, $2, 0, 1)
       ON CONFLICT (subject) DO UPDATE SET
         window_start = CASE WHEN ${ENDED} THEN $2 ELSE t.window_start END,
         failures = CASE WHEN ${ENDED} THEN 0 ELSE t.failures END,
         pending = CASE WHEN ${ENDED} THEN 1 ELSE t.pending + 1 END
       RETURNING window_start, failures, pending`,
      [subject, now, windowSeconds],
    );
    const row = rows[0]!;
    return { windowStart: row.window_start, failures: row.failures, pending: row.pending };
  }

  /**
   * Ends an attempt begun in the window that opened at `windowStart`: no longer under way, and a failure counted, the
   * failures cleared, or neither. Nothing changes once that window has been replaced.
   */
  async end(subject: string, windowStart: Date, how: AttemptEnd): Promise<void> {
    await this.dataSource.query(
      `UPDATE token_throttle SET
         pending = greatest(pending - 1, 0),
         failures = CASE $3 WHEN 'failed' THEN failures + 1 WHEN 'succeeded-clear' THEN 0 ELSE failures END
       WHERE subject = $1 AND window_start = $2`,
      [subject, windowStart, how],
    );
  }

  /** Whether `clientId` authenticated from `source` after `since`. */
  async isKnownSource(clientId: string, source: string, since: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM token_known_sources WHERE client_id = $1 AND source = $2 AND last_success_at > $3',
      [clientId, source, since],
    );
    return rows.length > 0;
  }

  async rememberSource(clientId: string, source: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO token_known_sources (client_id, source, last_success_at) VALUES ($1, $2, $3)
       ON CONFLICT (client_id, source) DO UPDATE SET last_success_at = EXCLUDED.last_success_at`,
      [clientId, source, now],
    );
  }

  /** Drops up to `limit` counters whose window has ended; they no longer throttle anything. */
  async purgeEnded(now: Date, windowSeconds: number, limit: number): Promise<number> {
    const result: [unknown, number] = await this.dataSource.query(
      `DELETE FROM token_throttle WHERE subject IN (SELECT subject FROM token_throttle t WHERE ${ENDED} LIMIT $1)`,
      [limit, now, windowSeconds],
    );
    return result[1];
  }

  /** Forgets up to `limit` sources no client has authenticated from since `before`. */
  async purgeKnownSources(before: Date, limit: number): Promise<number> {
    const result: [unknown, number] = await this.dataSource.query(
      `DELETE FROM token_known_sources WHERE (client_id, source) IN (
         SELECT client_id, source FROM token_known_sources WHERE last_success_at <= $1 LIMIT $2
       )`,
      [before, limit],
    );
    return result[1];
  }
}
