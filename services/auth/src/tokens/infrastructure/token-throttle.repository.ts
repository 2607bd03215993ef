import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { FailureCounter } from '../domain/failure-window';

interface CounterRow {
  window_start: Date;
  failures: number;
}

/** A window of `windowSeconds` that opened at or before `$2 - windowSeconds` has ended. */
const ENDED = `t.window_start <= $2::timestamptz - make_interval(secs => $3)`;

/**
 * The token endpoint's counters (token_throttle, one per subject) and the sources each client has authenticated from
 * (token_known_sources), in Postgres so the limits hold across replicas. Raw SQL: counting is one atomic upsert that
 * opens a new window when the old one has ended and returns the count, which TypeORM cannot express.
 */
@Injectable()
export class TokenThrottleRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Counts one attempt against `subject` in the window open at `now` (a new one if the last has ended) and returns
   * the counter with it: counted before the secret is checked, so parallel attempts cannot all pass a check first.
   */
  async count(subject: string, now: Date, windowSeconds: number): Promise<FailureCounter> {
    const rows: CounterRow[] = await this.dataSource.query(
      `INSERT INTO token_throttle AS t (subject, window_start, failures) VALUES ($1, $2, 1)
       ON CONFLICT (subject) DO UPDATE SET
         window_start = CASE WHEN ${ENDED} THEN $2 ELSE t.window_start END,
         failures = CASE WHEN ${ENDED} THEN 1 ELSE t.failures + 1 END
       RETURNING window_start, failures`,
      [subject, now, windowSeconds],
    );
    const row = rows[0]!;
    return { windowStart: row.window_start, failures: row.failures };
  }

  /** Takes back an attempt counted in the window that opened at `windowStart` (it turned out not to be a failure). */
  async uncount(subject: string, windowStart: Date): Promise<void> {
    await this.dataSource.query(
      'UPDATE token_throttle SET failures = failures - 1 WHERE subject = $1 AND window_start = $2 AND failures > 0',
      [subject, windowStart],
    );
  }

  async clear(subject: string): Promise<void> {
    await this.dataSource.query('DELETE FROM token_throttle WHERE subject = $1', [subject]);
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
