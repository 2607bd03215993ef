import { SERVICEABILITY_STATUSES } from '@lx/contracts';
import type { StatisticsFilter } from '@lx/domain';
import type { RollupScope } from '../../facts/location-fact';

/**
 * Where a statistics answer is computed:
 * - `counters`: the maintained counters by status, address, coordinates and grouping (at most 56 rows), for no filter
 *   or filters only on those dimensions: the daily "how many ACTIVE" check whatever the size;
 * - `geoCounters`: the same counters per country and region, when country or region is among the filters;
 * - `rollups`: the same counters per scope (every location, a country, a country and region, a location group, a
 *   location group within a country, and within a country and region) and per UTC day and calendar month of
 *   updatedAt, when modifiedSince / modifiedBefore or a location group is among the filters: whole months and the
 *   whole days of the two edge months are summed there, only the two edge days are counted in the facts (through an
 *   index on the scope and updated_at), so the cost follows two days' changes in the scope, not the width of the
 *   range or the size of the scope; a group without a range is the sum of its months;
 * - `facts`: one row per location with indexes for the filters of a building or a neighbourhood (address group,
 *   locality, postal code); the cost follows the number of locations of the most selective of them.
 */
export type StatisticsSource = 'counters' | 'geoCounters' | 'rollups' | 'facts';

export interface StatisticsQuery {
  source: StatisticsSource;
  text: string;
  values: unknown[];
}

/** The row the query returns: bigint counts as strings (node-postgres keeps int8 exact). */
export type StatisticsRow = Record<
  'total' | 'address_only' | 'coordinates_only' | 'address_and_coordinates' | 'grouped',
  string
> &
  Record<string, string>;

export const STATISTICS_TABLES: Record<StatisticsSource, string> = {
  counters: 'location_counters',
  geoCounters: 'location_geo_counters',
  rollups: 'location_rollups',
  facts: 'location_facts',
};

/** Filters only the facts can answer. */
const FACT_ONLY: readonly (keyof StatisticsFilter)[] = ['addressGroupId', 'locality', 'postalCode'];

export function sourceFor(filter: StatisticsFilter): StatisticsSource {
  const dated = filter.modifiedSince !== undefined || filter.modifiedBefore !== undefined;
  const geographic = filter.country !== undefined || filter.region !== undefined;
  if (FACT_ONLY.some((key) => filter[key] !== undefined)) return 'facts';
  if (dated || filter.locationGroupId !== undefined) return 'rollups';
  if (geographic) return 'geoCounters';
  return 'counters';
}

/**
 * One query that answers totalCount, countByStatus and countByType for the filters (combined with AND). Over the
 * counters each row weighs its `locations`; over the facts each row is one location. A status filter never matches
 * a location without serviceability status (null in the facts, '' in the counters).
 */
export function buildStatisticsQuery(filter: StatisticsFilter): StatisticsQuery {
  const source = sourceFor(filter);
  if (source === 'rollups') return buildRollupsQuery(filter);
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
    conditions.push(
      facts
        ? `location_group_id IS ${filter.hasLocationGroup ? 'NOT ' : ''}NULL`
        : `has_location_group = ${filter.hasLocationGroup}`,
    );
  }
  if (filter.addressGroupId !== undefined) where((p) => `address_group_id = ${p}::uuid`, filter.addressGroupId);
  if (filter.locationGroupId !== undefined) where((p) => `location_group_id = ${p}::uuid`, filter.locationGroupId);
  if (filter.country !== undefined) where((p) => `country = ${p}`, filter.country);
  if (filter.region !== undefined) where((p) => `region = ${p}`, filter.region);
  if (filter.locality !== undefined) where((p) => `locality = ${p}`, filter.locality);
  if (filter.postalCode !== undefined) where((p) => `postal_code = ${p}`, filter.postalCode);

  const text = `SELECT ${answerColumns(weight, grouped)} FROM ${STATISTICS_TABLES[source]}${
    conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`
  }`;
  return { source, text, values };
}

/** The aggregate columns of every answer, over rows weighted by `weight`; `grouped` says whether a row is grouped. */
function answerColumns(weight: string, grouped: string): string {
  const count = (condition: string) => `coalesce(${weight} FILTER (WHERE ${condition}), 0)`;
  return [
    `coalesce(${weight}, 0) AS total`,
    ...SERVICEABILITY_STATUSES.map((status) => `${count(`status = '${status}'`)} AS "${status}"`),
    `${count('has_address AND NOT has_coordinates')} AS address_only`,
    `${count('has_coordinates AND NOT has_address')} AS coordinates_only`,
    `${count('has_address AND has_coordinates')} AS address_and_coordinates`,
    `${count(grouped)} AS grouped`,
  ].join(', ');
}

/**
 * A location group, or modifiedSince S / modifiedBefore B (exclusive bounds), with or without a geography (country,
 * region) and counter dimensions, from location_rollups:
 * - the whole months strictly after S's day and before B's day (their month rows);
 * - the other whole days strictly between S's day and B's day: those of S's month and of B's month (their day rows;
 *   one part when both are one month);
 * - the rest of S's day after S, and the part of B's day before B, from location_facts (when S and B fall on one day,
 *   only the facts between them).
 * Day and month boundaries are computed by Postgres from the same timestamptz values it stores, so the parts never
 * overlap or leave a gap. Without S and B (a location group alone) every month row of the scope is summed.
 */
function buildRollupsQuery(filter: StatisticsFilter): StatisticsQuery {
  const values: unknown[] = [];
  const parameter = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const since = filter.modifiedSince === undefined ? undefined : `${parameter(filter.modifiedSince)}::timestamptz`;
  const before = filter.modifiedBefore === undefined ? undefined : `${parameter(filter.modifiedBefore)}::timestamptz`;
  const dayOf = (instant: string) => `(${instant} AT TIME ZONE 'UTC')::date`;
  const startOf = (day: string) => `(${day}::timestamp AT TIME ZONE 'UTC')`;
  const monthOf = (day: string) => `(${day} - extract(day FROM ${day})::integer + 1)`;
  const monthAfter = (month: string) => `(${month} + interval '1 month')::date`;

  // The scope: its rollup rows (by the primary key or a region index) and its facts.
  const scope = scopeOf(filter, parameter);
  const rows = (granularity: 'day' | 'month', conditions: (string | undefined)[]) =>
    `SELECT status, has_address, has_coordinates, has_location_group, locations FROM ${STATISTICS_TABLES.rollups}
      WHERE ${[`scope = '${scope.name}'`, `granularity = '${granularity}'`, ...scope.rollups, ...conditions]
        .filter((condition) => condition !== undefined)
        .join(' AND ')}`;
  const sinceDay = since === undefined ? undefined : dayOf(since);
  const beforeDay = before === undefined ? undefined : dayOf(before);
  // Month starts: the first whole month after S's day, and B's month (whole months are those before it). Every bound
  // is a range on `period`, so each part is one range of the index.
  const afterSinceMonth = sinceDay === undefined ? undefined : monthAfter(monthOf(sinceDay));
  const beforeMonth = beforeDay === undefined ? undefined : monthOf(beforeDay);
  const parts = [
    rows('month', [
      afterSinceMonth === undefined ? undefined : `period >= ${afterSinceMonth}`,
      beforeMonth === undefined ? undefined : `period < ${beforeMonth}`,
    ]),
  ];
  if (sinceDay !== undefined && afterSinceMonth !== undefined) {
    // The whole days of S's month after S's day (and before B's day when B is in that month).
    parts.push(
      rows('day', [
        `period > ${sinceDay}`,
        `period < ${afterSinceMonth}`,
        beforeDay === undefined ? undefined : `period < ${beforeDay}`,
      ]),
    );
  }
  if (beforeDay !== undefined && beforeMonth !== undefined) {
    // The whole days of B's month before B's day, unless that month is S's (counted above).
    parts.push(
      rows('day', [
        `period >= ${beforeMonth}`,
        `period < ${beforeDay}`,
        afterSinceMonth === undefined ? undefined : `period >= ${afterSinceMonth}`,
      ]),
    );
  }
  const factPart = (conditions: string[]) =>
    `SELECT coalesce(status, '') AS status, has_address, has_coordinates, location_group_id IS NOT NULL AS has_location_group,
            1::bigint AS locations
       FROM ${STATISTICS_TABLES.facts} WHERE ${[...scope.facts, ...conditions].join(' AND ')}`;
  if (since !== undefined) {
    // The rest of S's day after S (and before B when B is that same day).
    const conditions = [`updated_at > ${since}`, `updated_at < ${startOf(`(${dayOf(since)} + 1)`)}`];
    if (before !== undefined) conditions.push(`updated_at < ${before}`);
    parts.push(factPart(conditions));
  }
  if (before !== undefined) {
    // The part of B's day before B, unless S's day is B's day (counted above).
    const conditions = [`updated_at >= ${startOf(dayOf(before))}`, `updated_at < ${before}`];
    if (since !== undefined) conditions.push(`${dayOf(since)} < ${dayOf(before)}`);
    parts.push(factPart(conditions));
  }

  const conditions: string[] = [];
  if (filter.statuses !== undefined) conditions.push(`status = ANY(${parameter(filter.statuses)}::text[])`);
  if (filter.hasAddress !== undefined) conditions.push(`has_address = ${parameter(filter.hasAddress)}::boolean`);
  if (filter.hasCoordinates !== undefined) {
    conditions.push(`has_coordinates = ${parameter(filter.hasCoordinates)}::boolean`);
  }
  if (filter.hasLocationGroup !== undefined) conditions.push(`has_location_group = ${filter.hasLocationGroup}`);
  const text = `SELECT ${answerColumns('sum(locations)', 'has_location_group')} FROM (${parts.join(
    ' UNION ALL ',
  )}) AS matching${conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`}`;
  return { source: 'rollups', text, values };
}

/**
 * The rollup scope of a filter (a location group within a region or a country, a location group, a region, a country,
 * or every location) with its conditions on the rollup rows (in primary key order) and on the facts. A region without
 * a country is the region in every country that has it (through the rollups' region indexes).
 */
function scopeOf(
  filter: StatisticsFilter,
  parameter: (value: unknown) => string,
): { name: RollupScope; rollups: string[]; facts: string[] } {
  const group = filter.locationGroupId === undefined ? undefined : parameter(filter.locationGroupId);
  const country = filter.country === undefined ? undefined : parameter(filter.country);
  const region = filter.region === undefined ? undefined : parameter(filter.region);
  const geography = [
    ...(country === undefined ? [] : [`country = ${country}`]),
    ...(region === undefined ? [] : [`region = ${region}`]),
  ];
  if (group !== undefined) {
    const inGroup = `location_group_id = ${group}::uuid`;
    if (region !== undefined) {
      return { name: 'group-region', rollups: [`${inGroup}::text`, ...geography], facts: [inGroup, ...geography] };
    }
    return country === undefined
      ? { name: 'group', rollups: [`${inGroup}::text`, `country = ''`, `region = ''`], facts: [inGroup] }
      : {
          name: 'group-country',
          rollups: [`${inGroup}::text`, ...geography, `region = ''`],
          facts: [inGroup, ...geography],
        };
  }
  const ungrouped = `location_group_id = ''`;
  if (region !== undefined) return { name: 'region', rollups: [ungrouped, ...geography], facts: geography };
  if (country !== undefined)
    return { name: 'country', rollups: [ungrouped, ...geography, `region = ''`], facts: geography };
  return { name: 'all', rollups: [ungrouped, `country = ''`, `region = ''`], facts: [] };
}
