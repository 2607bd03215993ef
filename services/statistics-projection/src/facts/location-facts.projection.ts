import { Inject, Injectable, Optional } from '@nestjs/common';
import { type EventOf, type EventType, TOPICS, type TopicName } from '@lx/contracts';
import { latestPerAggregate, type ProjectedEvent, type Projection, type ProjectionTransaction } from '@lx/messaging';
import {
  cellOf,
  type CounterCell,
  counterDeltas,
  type CounterDelta,
  factOf,
  type LocationFact,
  withoutGeography,
} from './location-fact';
import { LIVE_TABLES, STATISTICS_TABLES_TOKEN, type StatisticsTables } from './statistics-tables';

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
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/**
 * Keeps one fact per location and the counters over them, in the caller's transaction.
 *
 * Only the newest version per location in a batch matters (each event carries the full location). The stored facts
 * of the batch's locations are read FOR UPDATE; a location whose stored version is not older than the event's is
 * left alone (duplicate, redelivery, or an older event after a newer one), so its counters do not move either. For
 * the others the counters lose the stored fact's cell and gain the new fact's, then the facts are written. Facts and
 * counters therefore always agree: the counters equal a count over the facts at every commit.
 */
@Injectable()
export class LocationFactsProjection implements Projection {
  readonly name = 'statistics';
  readonly topics: readonly TopicName[] = [TOPICS.locationEvents.name];
  readonly eventTypes: readonly EventType[] = ['LOCATION_CREATED', 'LOCATION_UPDATED'];
  private readonly tables: StatisticsTables;

  constructor(@Optional() @Inject(STATISTICS_TABLES_TOKEN) tables?: StatisticsTables) {
    this.tables = tables ?? LIVE_TABLES;
  }

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    const latest = latestPerAggregate(events, (projected) => (projected.event as LocationEvent).data.id);
    const incoming = latest.map((projected) => factOf((projected.event as LocationEvent).data, projected.version));
    const { rows } = await transaction.query<FactRow>(
      `SELECT location_id, version, status, has_address, has_coordinates, location_group_id, country, region
         FROM ${quote(this.tables.facts)} WHERE location_id = ANY($1::uuid[]) ORDER BY location_id FOR UPDATE`,
      [incoming.map((fact) => fact.locationId)],
    );
    const stored = new Map(rows.map((row) => [row.location_id, row]));
    const changes = incoming
      .map((after) => ({ before: stored.get(after.locationId.toLowerCase()), after }))
      .filter(({ before, after }) => before === undefined || before.version < after.version);
    if (changes.length === 0) return;

    const facts = changes.map((change) => change.after);
    await transaction.query(
      `INSERT INTO ${quote(this.tables.facts)} AS f
         (location_id, version, status, has_address, has_coordinates, location_group_id, address_group_id,
          country, region, locality, postal_code, updated_at)
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::boolean[], $5::boolean[], $6::uuid[], $7::uuid[],
                            $8::text[], $9::text[], $10::text[], $11::text[], $12::timestamptz[])
       ON CONFLICT (location_id) DO UPDATE SET
         version = EXCLUDED.version, status = EXCLUDED.status, has_address = EXCLUDED.has_address,
         has_coordinates = EXCLUDED.has_coordinates, location_group_id = EXCLUDED.location_group_id,
         address_group_id = EXCLUDED.address_group_id, country = EXCLUDED.country, region = EXCLUDED.region,
         locality = EXCLUDED.locality, postal_code = EXCLUDED.postal_code, updated_at = EXCLUDED.updated_at
       WHERE f.version < EXCLUDED.version`,
      [
        facts.map((fact) => fact.locationId),
        facts.map((fact) => fact.version),
        facts.map((fact) => fact.status),
        facts.map((fact) => fact.hasAddress),
        facts.map((fact) => fact.hasCoordinates),
        facts.map((fact) => fact.locationGroupId),
        facts.map((fact) => fact.addressGroupId),
        facts.map((fact) => fact.country),
        facts.map((fact) => fact.region),
        facts.map((fact) => fact.locality),
        facts.map((fact) => fact.postalCode),
        facts.map((fact) => fact.updatedAt),
      ],
    );
    const cells = changes.map(({ before, after }) => ({
      before: before === undefined ? undefined : cellOfRow(before),
      after: cellOf(after),
    }));
    const geoDeltas = counterDeltas(cells);
    if (geoDeltas.length === 0) return;
    const plainDeltas = counterDeltas(
      cells.map(({ before, after }) => ({
        before: before === undefined ? undefined : withoutGeography(before),
        after: withoutGeography(after),
      })),
    );
    await this.addToCounters(transaction, this.tables.geoCounters, geoDeltas, true);
    if (plainDeltas.length > 0) await this.addToCounters(transaction, this.tables.counters, plainDeltas, false);
  }

  /** Adds the deltas to a counters table, creating missing cells; rows are touched in the deltas' (sorted) order. */
  private async addToCounters(
    transaction: ProjectionTransaction,
    table: string,
    deltas: readonly CounterDelta[],
    geography: boolean,
  ): Promise<void> {
    const key = `${geography ? 'country, region, ' : ''}status, has_address, has_coordinates, has_location_group`;
    const geoColumns = geography ? '$6::text[], $7::text[], ' : '';
    await transaction.query(
      `INSERT INTO ${quote(table)} AS c (${key}, locations)
       SELECT ${geography ? 'country, region, ' : ''}status, has_address, has_coordinates, has_location_group, locations
         FROM unnest(${geoColumns}$1::text[], $2::boolean[], $3::boolean[], $4::boolean[], $5::bigint[])
           AS d(${geography ? 'country, region, ' : ''}status, has_address, has_coordinates, has_location_group, locations)
       ON CONFLICT (${key}) DO UPDATE SET locations = c.locations + EXCLUDED.locations`,
      [
        deltas.map(({ cell }) => cell.status),
        deltas.map(({ cell }) => cell.hasAddress),
        deltas.map(({ cell }) => cell.hasCoordinates),
        deltas.map(({ cell }) => cell.hasLocationGroup),
        deltas.map(({ delta }) => delta),
        ...(geography ? [deltas.map(({ cell }) => cell.country), deltas.map(({ cell }) => cell.region)] : []),
      ],
    );
  }
}

function cellOfRow(row: FactRow): CounterCell {
  return cellOf({
    country: row.country,
    region: row.region,
    status: row.status,
    hasAddress: row.has_address,
    hasCoordinates: row.has_coordinates,
    locationGroupId: row.location_group_id,
  });
}
