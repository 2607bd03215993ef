import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { FailureCounter } from '../domain/failure-window';

interface CounterRow {
  window_start: Date;
  failures: number;
}

/**
 * Failed client authentications per client id (any UUID, known or not), in Postgres so the limit holds across replicas. Raw SQL: the
 * counter is one atomic upsert that starts a new window when the old one has ended, which TypeORM cannot express.
 */
@Injectable()
export class TokenFailuresRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async find(clientId: string): Promise<FailureCounter | null> {
    const rows: CounterRow[] = await this.dataSource.query(
      'SELECT window_start, failures FROM token_failures WHERE client_id = $1',
      [clientId],
    );
    const row = rows[0];
    return row === undefined ? null : { windowStart: row.window_start, failures: row.failures };
  }

  /** Counts one failure in the window that is open at `now`, opening a new one if the last has ended. */
  async record(clientId: string, now: Date, windowSeconds: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO token_failures AS t (client_id, window_start, failures) VALUES ($1, $2, 1)
       ON CONFLICT (client_id) DO UPDATE SET
         window_start = CASE WHEN t.window_start <= $2::timestamptz - make_interval(secs => $3) THEN $2 ELSE t.window_start END,
         failures = CASE WHEN t.window_start <= $2::timestamptz - make_interval(secs => $3) THEN 1 ELSE t.failures + 1 END`,
      [clientId, now, windowSeconds],
    );
  }

  async clear(clientId: string): Promise<void> {
    await this.dataSource.query('DELETE FROM token_failures WHERE client_id = $1', [clientId]);
  }

  /** Drops counters whose window has ended; they no longer throttle anything. */
  async purgeEnded(now: Date, windowSeconds: number): Promise<number> {
    const result: [unknown, number] = await this.dataSource.query(
      'DELETE FROM token_failures WHERE window_start <= $1::timestamptz - make_interval(secs => $2)',
      [now, windowSeconds],
    );
    return result[1];
  }
}
