import { SERVICEABILITY_STATUSES } from '@lx/contracts';
import type { StatisticsFilter } from '@lx/domain';

/**
 * Where a statistics answer is computed:
 * - `counters`: the maintained counters by status, address, coordinates and grouping (at most 56 rows), for no filter
 *   or filters only on those dimensions: the daily "how many ACTIVE" check whatever the size;
 * - `geoCounters`: the same counters per country and region, when country or region is among the filters;
 * - `facts`: one row per location with indexes for the selective filters (group ids, locality, postal code, the
 *   updatedAt range); the cost follows the number of matching locations.
 */
export type StatisticsSource = 'counters' | 'geoCounters' | 'facts';

export interface StatisticsQuery {
  source: StatisticsSource;
  text: string;
  values: unknown[];
}

/** The row the query returns: bigint counts as strings (node-postgres keeps int8 exact). */
export type StatisticsRow = Record<'total' | 'address_only' | 'coordinates_only' | 'address_and_coordinates' | 'grouped', string> &
  Record<string, string>;

export const STATISTICS_TABLES: Record<StatisticsSource, string> = {
  counters: 'location_counters',
  geoCounters: 'location_geo_counters',
  facts: 'location_facts',
};

/** Filters only the facts can answer. */
const FACT_ONLY: readonly (keyof StatisticsFilter)[] = [
  'modifiedSince',
  'modifiedBefore',
  'addressGroupId',
  'locationGroupId',
  'locality',
  'postalCode',
];

export function sourceFor(filter: StatisticsFilter): StatisticsSource {
  if (FACT_ONLY.some((key) => filter[key] !== undefined)) return 'facts';
  if (filter.country !== undefined || filter.region !== undefined) return 'geoCounters';
  return 'counters';
}

/**
 * One query that answers totalCount, countByStatus and countByType for the filters (combined with AND). Over the
 * counters each row weighs its `locations`; over the facts each row is one location. A status filter never matches
 * a location without serviceability status (null in the facts, '' in the counters).
 */
export function buildStatisticsQuery(filter: StatisticsFilter): StatisticsQuery {
  const source = sourceFor(filter);
  const facts = source === 'facts';
  const weight = facts ? 'count(*)' : 'sum(locations)';
  const grouped = facts ? 'location_group_id IS NOT NULL' : 'has_location_group';
  const values: unknown[] = [];
  const conditions: string[] = [];
  const where = (sql: (parameter: string) => string, value: unknown) => {
    values.push(value);
    conditions.push(sql(`$${values.length}`));
  };
  if (filter.statuses !== undefined) where((p) => `status = ANY(${p}::text[])`, filter.statuses);
  if (filter.modifiedSince !== undefined) where((p) => `updated_at > ${p}::timestamptz`, filter.modifiedSince);
  if (filter.modifiedBefore !== undefined) where((p) => `updated_at < ${p}::timestamptz`, filter.modifiedBefore);
  if (filter.hasAddress !== undefined) where((p) => `has_address = ${p}::boolean`, filter.hasAddress);
  if (filter.hasCoordinates !== undefined) where((p) => `has_coordinates = ${p}::boolean`, filter.hasCoordinates);
  if (filter.hasLocationGroup !== undefined) {
    conditions.push(facts ? `location_group_id IS ${filter.hasLocationGroup ? 'NOT ' : ''}NULL` : `has_location_group = ${filter.hasLocationGroup}`);
  }
  if (filter.addressGroupId !== undefined) where((p) => `address_group_id = ${p}::uuid`, filter.addressGroupId);
  if (filter.locationGroupId !== undefined) where((p) => `location_group_id = ${p}::uuid`, filter.locationGroupId);
  if (filter.country !== undefined) where((p) => `country = ${p}`, filter.country);
  if (filter.region !== undefined) where((p) => `region = ${p}`, filter.region);
  if (filter.locality !== undefined) where((p) => `locality = ${p}`, filter.locality);
  if (filter.postalCode !== undefined) where((p) => `postal_code = ${p}`, filter.postalCode);

  const count = (condition: string) => `coalesce(${weight} FILTER (WHERE ${condition}), 0)`;
  const columns = [
    `coalesce(${weight}, 0) AS total`,
    ...SERVICEABILITY_STATUSES.map((status) => `${count(`status = '${status}'`)} AS "${status}"`),
    `${count('has_address AND NOT has_coordinates')} AS address_only`,
    `${count('has_coordinates AND NOT has_address')} AS coordinates_only`,
    `${count('has_address AND has_coordinates')} AS address_and_coordinates`,
    `${count(grouped)} AS grouped`,
  ];
  const text = `SELECT ${columns.join(', ')} FROM ${STATISTICS_TABLES[source]}${
    conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`
  }`;
  return { source, text, values };
}
