import { Inject, Injectable, Optional } from '@nestjs/common';
import { type EventOf, type EventType, TOPICS, type TopicName } from '@lx/contracts';
import {
  latestPerAggregate,
  type ProjectedEvent,
  type Projection,
  type ProjectionTransaction,
  quoteIdentifier,
} from '@lx/messaging';
import {
  cellIn,
  cellOf,
  type CounterCell,
  counterDeltas,
  type CounterDelta,
  COUNTER_TABLES,
  type CounterTable,
  factOf,
  type LocationFact,
  rollupDeltas,
  type RollupDelta,
} from './location-fact';
import { COUNTED_COLUMNS, LIVE_TABLES, STATISTICS_TABLES_TOKEN, type StatisticsTables } from './statistics-tables';

type LocationEvent = EventOf<'LOCATION_CREATED' | 'LOCATION_UPDATED'>;

interface FactRow {
  location_id: string;
  version: number;
  status: LocationFact['status'];
  has_address: boolean;
  has_coordinates: boolean;
  location_group_id: string | null;
  country: string;
  region: string;
  day: string;
}

/**
 * Marks the transaction as this release's, so the trigger that keeps the rollups for the previous release's writers
 * during an upgrade (see the AddStatisticsRollups migration) adds nothing. A condition on each row of the batch,
 * evaluated before that row is written (an AFTER trigger's WHEN is evaluated as its row is written).
 */
const KEPT = `set_config('lx.statistics', 'kept', true) = 'kept'`;

/** The UTC day of updated_at, as text. */
const DAY = `to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day`;

/**
 * Keeps one fact per location and the counters over them, in the caller's transaction.
 *
 * Only the newest version per location in a batch matters (each event carries the full location). The stored facts
 * of the batch's locations are read FOR UPDATE; a location whose stored version is not older than the event's is
 * left alone (duplicate, redelivery, or an older event after a newer one), so its counters do not move either. For
 * the others the facts are written, and each counters table (overall, per country and region, per UTC day of
 * updatedAt) and each rollup row of the fact (per scope, day and month) loses the stored fact's cell and gains the new
 * fact's. Facts and counters therefore always agree: every counters table and the rollups equal a count over the facts
 * at every commit. (The day counters answer no query of this release: they are kept for the previous one, which a
 * rollback returns to; see the AddStatisticsRollups migration.)
 */
@Injectable()
export class LocationFactsProjection implements Projection {
  readonly name = 'statistics';
  readonly topics: readonly TopicName[] = [TOPICS.locationEvents.name];
  readonly eventTypes: readonly EventType[] = ['LOCATION_CREATED', 'LOCATION_UPDATED'];
  private readonly tables: StatisticsTables;
  /** False while a replay fills the facts alone (factsOnly). */
  private aggregates = true;

  constructor(@Optional() @Inject(STATISTICS_TABLES_TOKEN) tables?: StatisticsTables) {
    this.tables = tables ?? LIVE_TABLES;
  }

  /**
   * Keeps the facts alone, not the counters and rollups over them: a replay's way to the end of the log, after which
   * fillAggregatesFromFacts derives those at once and the full projection goes on.
   */
  static factsOnly(tables: StatisticsTables): LocationFactsProjection {
    const projection = new LocationFactsProjection(tables);
    projection.aggregates = false;
    return projection;
  }

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    const latest = latestPerAggregate(events, (projected) => (projected.event as LocationEvent).data.id);
    const incoming = latest.map((projected) => factOf((projected.event as LocationEvent).data, projected.version));
    const { rows } = await transaction.query<FactRow>(
      `SELECT location_id, version, status, has_address, has_coordinates, location_group_id, country, region, ${DAY}
         FROM ${quoteIdentifier(this.tables.facts)} WHERE location_id = ANY($1::uuid[]) ORDER BY location_id FOR UPDATE`,
      [incoming.map((fact) => fact.locationId)],
    );
    const stored = new Map(rows.map((row) => [row.location_id, row]));
    const changes = incoming
      .map((after) => ({ before: stored.get(after.locationId.toLowerCase()), after }))
      .filter(({ before, after }) => before === undefined || before.version < after.version);
    if (changes.length === 0) return;
    if (!this.aggregates) {
      await this.writeFacts(
        transaction,
        changes.map(({ after }) => after),
      );
      return;
    }

    const written = await this.writeFacts(
      transaction,
      changes.map(({ after }) => after),
    );
    const cells = changes.flatMap(({ before, after }) => {
      const fact = written.get(after.locationId.toLowerCase());
      // Not written: a concurrent transaction stored a newer version of this new location first (the version guard
      // of the upsert); this event changes nothing.
      if (fact === undefined) return [];
      // Written over a fact the read above did not see: a concurrent transaction stored an older version of this new
      // location first. Its cells are unknown here; the batch is retried (transient), and then reads that fact.
      if (before === undefined && !fact.inserted) {
        throw new Error(`the fact of location ${after.locationId} was stored concurrently; the batch is retried`);
      }
      return [{ before: before === undefined ? undefined : cellOfRow(before), after: cellOf(after, fact.day) }];
    });
    // The rollups right after the facts: the order in which the previous release's writers (facts, the trigger's
    // rollups, then counters) take these rows during an upgrade, so the two never wait on each other in a cycle.
    const rollups = rollupDeltas(cells);
    if (rollups.length > 0) await this.addToRollups(transaction, rollups);
    for (const table of ['geoCounters', 'dayCounters', 'counters'] as const) {
      const deltas = counterDeltas(
        cells.map(({ before, after }) => ({
          before: before === undefined ? undefined : cellIn(table, before),
          after: cellIn(table, after),
        })),
      );
      if (deltas.length > 0) await this.addToCounters(transaction, table, deltas);
    }
  }

  /**
   * Upserts the facts (only over older versions; the rows read above are locked, so all of those) and returns, for each
   * fact written, its UTC day of updated_at as Postgres computed it from the stored value (so the day counters and
   * the rollups agree with the facts to the microsecond) and whether it was inserted rather than updated.
   */
  private async writeFacts(
    transaction: ProjectionTransaction,
    facts: readonly LocationFact[],
  ): Promise<Map<string, { day: string; inserted: boolean }>> {
    const rows = facts.map((fact) => ({
      location_id: fact.locationId,
      version: fact.version,
      status: fact.status,
      has_address: fact.hasAddress,
      has_coordinates: fact.hasCoordinates,
      location_group_id: fact.locationGroupId,
      address_group_id: fact.addressGroupId,
      country: fact.country,
      region: fact.region,
      locality: fact.locality,
      postal_code: fact.postalCode,
      updated_at: fact.updatedAt,
    }));
    // One JSON parameter for the whole batch (Postgres allows 65,535 parameters per statement).
    const { rows: written } = await transaction.query<{ location_id: string; day: string; inserted: boolean }>(
      `INSERT INTO ${quoteIdentifier(this.tables.facts)} AS f
         (location_id, version, status, has_address, has_coordinates, location_group_id, address_group_id,
          country, region, locality, postal_code, updated_at)
       SELECT location_id, version, status, has_address, has_coordinates, location_group_id, address_group_id,
              country, region, locality, postal_code, updated_at
         FROM json_to_recordset($1::json) AS r(
           location_id uuid, version int, status text, has_address boolean, has_coordinates boolean,
           location_group_id uuid, address_group_id uuid, country text, region text, locality text,
           postal_code text, updated_at timestamptz)
        WHERE ${KEPT}
       ON CONFLICT (location_id) DO UPDATE SET
         version = EXCLUDED.version, status = EXCLUDED.status, has_address = EXCLUDED.has_address,
         has_coordinates = EXCLUDED.has_coordinates, location_group_id = EXCLUDED.location_group_id,
         address_group_id = EXCLUDED.address_group_id, country = EXCLUDED.country, region = EXCLUDED.region,
         locality = EXCLUDED.locality, postal_code = EXCLUDED.postal_code, updated_at = EXCLUDED.updated_at
       WHERE f.version < EXCLUDED.version
       RETURNING location_id, ${DAY}, xmax = 0 AS inserted`,
      [JSON.stringify(rows)],
    );
    return new Map(written.map((row) => [row.location_id, { day: row.day, inserted: row.inserted }]));
  }

  /** Adds the deltas to a counters table, creating missing cells; rows are touched in the deltas' (sorted) order. */
  private addToCounters(
    transaction: ProjectionTransaction,
    table: CounterTable,
    deltas: readonly CounterDelta[],
  ): Promise<void> {
    const rows = deltas.map(({ cell, delta }) => ({
      country: cell.country,
      region: cell.region,
      day: cell.day,
      status: cell.status,
      has_address: cell.hasAddress,
      has_coordinates: cell.hasCoordinates,
      has_location_group: cell.hasLocationGroup,
      locations: delta,
    }));
    return addCounts(transaction, this.tables[table], [...COUNTER_TABLES[table], ...COUNTED_COLUMNS], rows);
  }

  /**
   * Adds the deltas to the rollups, creating missing rows, in the deltas' (sorted) order, and deletes the rows the
   * batch emptied: a location moving to another day leaves its old day's rows, which would otherwise stay as zeros
   * and make the table (and the months a query sums) grow with the history of changes rather than with the facts.
   */
  private async addToRollups(transaction: ProjectionTransaction, deltas: readonly RollupDelta[]): Promise<void> {
    const rows = deltas.map(({ cell, delta }) => ({
      scope: cell.scope,
      granularity: cell.granularity,
      location_group_id: cell.locationGroupId,
      country: cell.country,
      region: cell.region,
      period: cell.period,
      status: cell.status,
      has_address: cell.hasAddress,
      has_coordinates: cell.hasCoordinates,
      has_location_group: cell.hasLocationGroup,
      locations: delta,
    }));
    const key = ['scope', 'granularity', 'location_group_id', 'country', 'region', 'period', ...COUNTED_COLUMNS];
    await addCounts(transaction, this.tables.rollups, key, rows);
    const emptied = rows.filter((row) => row.locations < 0);
    if (emptied.length > 0) {
      const columns = key.join(', ');
      await transaction.query(
        `DELETE FROM ${quoteIdentifier(this.tables.rollups)}
          WHERE locations = 0 AND (${columns}) IN (SELECT ${columns} FROM json_to_recordset($1::json) AS d(${typed(key)}))`,
        [JSON.stringify(emptied)],
      );
    }
  }
}

const KEY_TYPES: Record<string, string> = {
  scope: 'text',
  granularity: 'text',
  location_group_id: 'text',
  country: 'text',
  region: 'text',
  day: 'date',
  period: 'date',
  status: 'text',
  has_address: 'boolean',
  has_coordinates: 'boolean',
  has_location_group: 'boolean',
};

/** Key columns with their types, for json_to_recordset. */
const typed = (key: readonly string[]) => key.map((column) => `${column} ${KEY_TYPES[column]}`).join(', ');

/**
 * Adds each row's `locations` to the row of `table` with the same key (its primary key, the columns of `key`), creating
 * it when missing; one statement, one JSON parameter, rows touched in the given order.
 */
async function addCounts(
  transaction: ProjectionTransaction,
  table: string,
  key: readonly string[],
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const columns = key.join(', ');
  await transaction.query(
    `INSERT INTO ${quoteIdentifier(table)} AS c (${columns}, locations)
     SELECT ${columns}, locations
       FROM json_to_recordset($1::json) AS d(${typed(key)}, locations bigint)
     ON CONFLICT (${columns}) DO UPDATE SET locations = c.locations + EXCLUDED.locations`,
    [JSON.stringify(rows)],
  );
}

function cellOfRow(row: FactRow): CounterCell {
  return cellOf(
    {
      country: row.country,
      region: row.region,
      status: row.status,
      hasAddress: row.has_address,
      hasCoordinates: row.has_coordinates,
      locationGroupId: row.location_group_id,
    },
    row.day,
  );
}
