import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PG_POOL } from '../database/database';
import type { WindowCounts } from './rate-limit';

/**
 * The table of request counts a service that limits its requests creates in its own schema (AddRateLimitCounts in its
 * migrations): one row per subject and window, which every replica adds its requests to. Rows are updated in place
 * several times a second, so pages keep room for their new versions (fillfactor).
 */
const CREATE_RATE_LIMIT_COUNTS = `
  CREATE TABLE rate_limit_counts (
    subject text NOT NULL,
    window_start bigint NOT NULL,
    requests bigint NOT NULL,
    CONSTRAINT rate_limit_counts_pkey PRIMARY KEY (subject, window_start)
  ) WITH (fillfactor = 50)`;

/**
 * The migration of every service that limits its requests (RateLimitModule): the request counts shared by its
 * replicas. One class for all of them; each lists it in its own migrations, in its own schema's history.
 */
export class AddRateLimitCounts1797984000000 implements MigrationInterface {
  name = 'AddRateLimitCounts1797984000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(CREATE_RATE_LIMIT_COUNTS);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE rate_limit_counts');
  }
}

/**
 * Adds the requests not sent yet and reads the totals of the windows tracked, in one statement. Rows are upserted in
 * key order, so two replicas syncing the same subjects at once cannot deadlock.
 */
const SYNC = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS i (subject, window_start, delta)
  ), added AS (
    INSERT INTO rate_limit_counts (subject, window_start, requests)
    SELECT subject, window_start, delta FROM input WHERE delta > 0 ORDER BY subject, window_start
    ON CONFLICT (subject, window_start) DO UPDATE SET requests = rate_limit_counts.requests + EXCLUDED.requests
    RETURNING subject, window_start, requests
  )
  SELECT subject, window_start, requests FROM added
  UNION ALL
  SELECT c.subject, c.window_start, c.requests
    FROM rate_limit_counts c JOIN input i USING (subject, window_start)
   WHERE i.delta = 0`;

/** One subject's requests in one window as this replica knows them. */
interface Tally {
  subject: string;
  windowStart: number;
  windowSeconds: number;
  /** Every replica's requests as of the last sync (this one's included). */
  shared: number;
  /** This replica's requests since, not yet sent. */
  unsent: number;
  /** This replica's requests in the sync under way. */
  sending: number;
}

const keyOf = (subject: string, windowStart: number) => `${windowStart} ${subject}`;

/**
 * Request counts per subject and window, shared by every replica of a service through its database: each replica
 * counts its own requests in memory and, every sync, adds them to the table and reads back the totals, so a decision
 * costs no query. What other replicas admitted since the last sync is not seen yet: with n replicas a subject can get
 * up to (n − 1) × its rate × the sync interval more than its quota. A sync that fails keeps its requests for the
 * next; meanwhile every replica goes on limiting on what it knows (with the database away for a whole window, a
 * subject can get its quota from each replica). A subject's tallies are those of the window under way and the one
 * before it, so memory follows the clients active in the last two windows.
 */
@Injectable()
export class SharedRateCounts {
  private readonly tallies = new Map<string, Tally>();
  private syncing?: Promise<number>;

  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** The subject's requests in the window starting at `windowStart` and in the window before, as known. */
  counts(subject: string, windowStart: number, windowSeconds: number): WindowCounts {
    return {
      previous: this.known(this.tally(subject, windowStart - windowSeconds, windowSeconds)),
      current: this.known(this.tally(subject, windowStart, windowSeconds)),
    };
  }

  /** Counts one request of the subject in the window of `windowSeconds` starting at `windowStart`. */
  add(subject: string, windowStart: number, windowSeconds: number): void {
    this.tally(subject, windowStart, windowSeconds).unsent += 1;
  }

  /**
   * Sends this replica's new requests and reads the totals of every window it tracks, after forgetting the windows
   * that no decision at `nowSeconds` looks at (before the previous window of their length). Resolves with the number
   * of windows synced. A call while a sync is under way joins it.
   */
  sync(nowSeconds: number): Promise<number> {
    this.syncing ??= this.syncNow(nowSeconds).finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  /** Deletes up to `limit` rows of windows that started before `before` (seconds since the epoch); how many. */
  async purge(before: number, limit: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM rate_limit_counts WHERE (subject, window_start) IN (
         SELECT subject, window_start FROM rate_limit_counts WHERE window_start < $1 LIMIT $2)`,
      [before, limit],
    );
    return rowCount ?? 0;
  }

  private async syncNow(nowSeconds: number): Promise<number> {
    for (const [key, tally] of this.tallies) {
      const previousStart = Math.floor(nowSeconds / tally.windowSeconds) * tally.windowSeconds - tally.windowSeconds;
      if (tally.windowStart < previousStart) this.tallies.delete(key);
    }
    const tallies = [...this.tallies.values()];
    if (tallies.length === 0) return 0;
    for (const tally of tallies) {
      tally.sending = tally.unsent;
      tally.unsent = 0;
    }
    try {
      const { rows } = await this.pool.query<{ subject: string; window_start: string; requests: string }>(SYNC, [
        tallies.map((tally) => tally.subject),
        tallies.map((tally) => tally.windowStart),
        tallies.map((tally) => tally.sending),
      ]);
      for (const row of rows) {
        const tally = this.tallies.get(keyOf(row.subject, Number(row.window_start)));
        if (tally !== undefined) tally.shared = Number(row.requests);
      }
    } catch (error) {
      // Not known to be added: sent again with the next sync (at worst counted twice, never lost).
      for (const tally of tallies) tally.unsent += tally.sending;
      throw error;
    } finally {
      for (const tally of tallies) tally.sending = 0;
    }
    return tallies.length;
  }

  private known(tally: Tally): number {
    return tally.shared + tally.sending + tally.unsent;
  }

  private tally(subject: string, windowStart: number, windowSeconds: number): Tally {
    const key = keyOf(subject, windowStart);
    let tally = this.tallies.get(key);
    if (tally === undefined) {
      tally = { subject, windowStart, windowSeconds, shared: 0, unsent: 0, sending: 0 };
      this.tallies.set(key, tally);
    }
    return tally;
  }
}
