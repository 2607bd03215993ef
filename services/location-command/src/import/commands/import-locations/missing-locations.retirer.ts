import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager, QueryRunner } from 'typeorm';
import { decideLocation, evolveLocation, type LocationState } from '@lx/domain';
import { Clock } from '@lx/platform';
import { BulkEventAppender } from '../../../event-store/bulk-event.appender';
import { EventStore } from '../../../event-store/event-store';
import type { EventStoreTransaction } from '../../../event-store/event-store.transaction';
import type { StoredStream, StreamAppend } from '../../../event-store/event-store.types';
import { locationIndex } from '../../../location/domain/location.decider';
import { IMPORT_OPTIONS, type ImportOptions } from '../../import-options';
import { ImportRowsMetrics } from './import-rows.metrics';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** A location in service: not CANCELLED or RETIRED. */
const IN_SERVICE = `stream_type = 'location'
     AND (serviceability_status IS NULL OR serviceability_status NOT IN ('CANCELLED', 'RETIRED'))`;

/** The candidates to retire, taken when they are counted: the locations in service the file did not name. */
const PLAN_RETIREMENTS = `
  INSERT INTO pg_temp.import_retire
  SELECT stream_id FROM aggregate_state a
   WHERE ${IN_SERVICE} AND NOT EXISTS (SELECT 1 FROM pg_temp.import_seen s WHERE s.stream_id = a.stream_id)`;

/** Candidates after $1 in id order; at most $2. */
const NEXT_CANDIDATES = `
  SELECT stream_id FROM pg_temp.import_retire WHERE stream_id > $1 ORDER BY stream_id LIMIT $2`;

/**
 * The last step of a full-replace import: retires every location still in service whose id the file did not name.
 *
 * The ids the file names (valid or not, so a mistyped row never retires its location) are recorded in a temporary
 * table of the import's connection, in the transaction of the batch that names them, so only committed batches
 * count. Once the whole file was read, `planRetirements` takes the locations in service it did not name as the
 * candidates (and counts them, for the guard); `retireMissing` retires those and no others. Use on one connection:
 * `begin` (which also counts the locations in service before the import), `recordNamed` per batch,
 * `planRetirements`, `retireMissing`, `end`.
 */
@Injectable()
export class MissingLocationsRetirer {
  constructor(
    private readonly store: EventStore,
    private readonly bulkAppender: BulkEventAppender,
    private readonly clock: Clock,
    @Inject(IMPORT_OPTIONS) private readonly options: ImportOptions,
    private readonly metrics: ImportRowsMetrics,
  ) {}

  /** Starts an empty record of named ids on the import's connection; the locations in service before the import. */
  async begin(runner: QueryRunner): Promise<number> {
    await runner.query('CREATE TEMP TABLE IF NOT EXISTS import_seen (stream_id uuid PRIMARY KEY)');
    await runner.query('CREATE TEMP TABLE IF NOT EXISTS import_retire (stream_id uuid PRIMARY KEY)');
    await runner.query('TRUNCATE pg_temp.import_seen, pg_temp.import_retire');
    const rows = (await runner.query(`SELECT count(*)::int AS n FROM aggregate_state WHERE ${IN_SERVICE}`)) as {
      n: number;
    }[];
    return rows[0]?.n ?? 0;
  }

  /** Records ids the file named, in the transaction of their batch. */
  async recordNamed(manager: EntityManager, ids: ReadonlySet<string>): Promise<void> {
    if (ids.size === 0) return;
    await manager.query('INSERT INTO pg_temp.import_seen SELECT unnest($1::uuid[]) ON CONFLICT DO NOTHING', [[...ids]]);
  }

  /** Takes the locations in service that were not named as the candidates of retireMissing; how many. */
  async planRetirements(runner: QueryRunner): Promise<number> {
    await runner.query('TRUNCATE pg_temp.import_retire');
    await runner.query(PLAN_RETIREMENTS);
    const rows = (await runner.query('SELECT count(*)::int AS n FROM pg_temp.import_retire')) as { n: number }[];
    return rows[0]?.n ?? 0;
  }

  /**
   * Retires the candidates, in id order and one transaction per batch, each decided on its locked state (one that
   * left service meanwhile gets nothing); how many.
   */
  async retireMissing(runner: QueryRunner, correlationId: string | undefined): Promise<number> {
    let total = 0;
    let after = NIL_UUID;
    for (;;) {
      const rows = (await runner.query(NEXT_CANDIDATES, [after, this.options.batchSize])) as { stream_id: string }[];
      const candidates = rows.map((row) => row.stream_id);
      const last = candidates[candidates.length - 1];
      if (last === undefined) return total;
      const retired = await this.store.transaction(
        (transaction) => this.retire(transaction, candidates, correlationId),
        runner,
      );
      this.metrics.countRetired(retired);
      total += retired;
      after = last;
    }
  }

  /** Drops the record; safe to call after a failure, whatever state the connection is in. */
  async end(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS pg_temp.import_seen, pg_temp.import_retire').catch(() => undefined);
  }

  private async retire(
    transaction: EventStoreTransaction,
    ids: readonly string[],
    correlationId: string | undefined,
  ): Promise<number> {
    const stored = await transaction.load(ids);
    const now = this.clock.now().toISOString();
    const appends = retirementsOf(stored, now);
    await transaction.appendBulk(this.bulkAppender.prepare(appends, { timestamp: now, correlationId }));
    return appends.length;
  }
}

/**
 * The RETIRED updates of the given locations, decided on their locked state: a location written since it was picked
 * may have left service already, and then gets nothing.
 */
export function retirementsOf(stored: ReadonlyMap<string, StoredStream>, now: string): StreamAppend[] {
  const appends: StreamAppend[] = [];
  for (const [id, found] of stored) {
    const state = found.data as LocationState;
    const decided = decideLocation({ type: 'RetireLocation', locationId: id, now }, state);
    if (!decided.ok || decided.value.length === 0) continue;
    const next = decided.value.reduce(evolveLocation, state);
    if (next === undefined) continue;
    appends.push({
      streamId: id,
      streamType: 'location',
      fromVersion: found.version,
      events: decided.value,
      index: locationIndex(next),
    });
  }
  return appends;
}
