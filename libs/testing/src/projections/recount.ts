import type { Client } from 'pg';
import {
  type Location,
  SERVICEABILITY_STATUSES,
  type ServiceabilityStatus,
  type StatisticsResponse,
} from '@lx/contracts';

export type Counts = Omit<StatisticsResponse, 'queryTimestamp'>;

/** The answer for a set of (status, address, coordinates, grouped) tuples, one per location. */
function countsOf(
  rows: readonly { status: string | null; hasAddress: boolean; hasCoordinates: boolean; grouped: boolean; n: number }[],
): Counts {
  const sum = (keep: (row: (typeof rows)[number]) => boolean) =>
    rows.filter(keep).reduce((total, row) => total + row.n, 0);
  const totalCount = sum(() => true);
  const grouped = sum((row) => row.grouped);
  return {
    totalCount,
    countByStatus: Object.fromEntries(
      SERVICEABILITY_STATUSES.map((status) => [status, sum((row) => row.status === status)]),
    ) as Counts['countByStatus'],
    countByType: {
      addressOnly: sum((row) => row.hasAddress && !row.hasCoordinates),
      coordinatesOnly: sum((row) => !row.hasAddress && row.hasCoordinates),
      addressAndCoordinates: sum((row) => row.hasAddress && row.hasCoordinates),
      grouped,
      standalone: totalCount - grouped,
    },
  };
}

/** The oracle in plain TypeScript: counts over locations as the command side holds them. */
export function expectedCounts(locations: readonly Location[]): Counts {
  return countsOf(
    locations.map((location) => ({
      status: location.fiberAccessDetails?.serviceability?.status ?? null,
      hasAddress: location.address !== undefined,
      hasCoordinates: location.coordinates !== undefined,
      grouped: location.locationGroupId !== undefined,
      n: 1,
    })),
  );
}

/**
 * A direct recount over the facts with a naive GROUP BY: written independently of the service's query builder, with
 * `where` in SQL over location_facts (parameters $1…).
 */
export async function recountFacts(db: Client, where = 'TRUE', values: unknown[] = []): Promise<Counts> {
  const { rows } = await db.query<{
    status: string | null;
    has_address: boolean;
    has_coordinates: boolean;
    grouped: boolean;
    n: number;
  }>(
    `SELECT status, has_address, has_coordinates, location_group_id IS NOT NULL AS grouped, count(*)::int AS n
       FROM location_facts WHERE ${where} GROUP BY 1, 2, 3, 4`,
    values,
  );
  return countsOf(
    rows.map((row) => ({
      status: row.status,
      hasAddress: row.has_address,
      hasCoordinates: row.has_coordinates,
      grouped: row.grouped,
      n: row.n,
    })),
  );
}

/**
 * A query string of GET /locations/statistics as SQL over location_facts for recountFacts: `[where, values]`, written
 * independently of the service's query builder. Values are taken as valid (the service answers 400 otherwise);
 * `status` may be comma-separated and repeated (one list), `country` any case.
 */
export function recountWhere(query: string): [string, unknown[]] {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    conditions.push(sql.replace('?', `$${values.length}`));
  };
  const params = new URLSearchParams(query);
  const statuses = params.getAll('status').flatMap((value) => value.split(','));
  if (statuses.length > 0) add('status = ANY(?)', statuses);
  for (const [name, raw] of params) {
    if (name === 'status') continue;
    else if (name === 'hasAddress') add('has_address = ?', raw === 'true');
    else if (name === 'hasCoordinates') add('has_coordinates = ?', raw === 'true');
    else if (name === 'hasLocationGroup') conditions.push(`location_group_id IS ${raw === 'true' ? 'NOT ' : ''}NULL`);
    else if (name === 'modifiedSince') add('updated_at > ?', raw);
    else if (name === 'modifiedBefore') add('updated_at < ?', raw);
    else if (name === 'locationGroupId') add('location_group_id = ?', raw);
    else if (name === 'addressGroupId') add('address_group_id = ?', raw);
    else if (name === 'country') add('country = ?', raw.toUpperCase());
    else if (name === 'region') add('region = ?', raw);
    else if (name === 'locality') add('locality = ?', raw);
    else if (name === 'postalCode') add('postal_code = ?', raw);
    else throw new Error(`recountWhere: unknown statistics parameter ${name}`);
  }
  return [conditions.join(' AND ') || 'TRUE', values];
}

/**
 * In one snapshot: the counters (without and with geography) against a recount of the facts. They must agree at every
 * commit, whatever else is being consumed meanwhile.
 */
export async function countersAgreeWithFacts(db: Client): Promise<{
  facts: unknown;
  counters: unknown;
  geo: unknown;
  factsByRegion: unknown;
  geoByRegion: unknown;
  factsByDay: unknown;
  dayCounters: unknown;
  factsByRollup: unknown;
  rollups: unknown;
}> {
  await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const cells = `coalesce(status, '') AS status, has_address, has_coordinates, location_group_id IS NOT NULL AS grouped`;
    const facts = await db.query(
      `SELECT ${cells}, count(*)::int AS n FROM location_facts GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    );
    const counters = await db.query(
      `SELECT status, has_address, has_coordinates, has_location_group AS grouped, locations::int AS n
         FROM location_counters WHERE locations <> 0 ORDER BY 1, 2, 3, 4`,
    );
    const geo = await db.query(
      `SELECT status, has_address, has_coordinates, has_location_group AS grouped, sum(locations)::int AS n
         FROM location_geo_counters GROUP BY 1, 2, 3, 4 HAVING sum(locations) <> 0 ORDER BY 1, 2, 3, 4`,
    );
    const factsByRegion = await db.query(
      `SELECT country, region, ${cells}, count(*)::int AS n FROM location_facts
        GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
    );
    const geoByRegion = await db.query(
      `SELECT country, region, status, has_address, has_coordinates, has_location_group AS grouped, locations::int AS n
         FROM location_geo_counters WHERE locations <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
    );
    const factsByDay = await db.query(
      `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${cells}, count(*)::int AS n
         FROM location_facts GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
    );
    const dayCounters = await db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, status, has_address, has_coordinates, has_location_group AS grouped,
              locations::int AS n
         FROM location_day_counters WHERE locations <> 0 ORDER BY 1, 2, 3, 4, 5`,
    );
    // Every rollup row recounted from the facts, with SQL of its own (date_trunc for the month).
    const scopes = [
      ['all', `'' AS country, '' AS region, '' AS location_group_id`, 'TRUE'],
      ['country', `country, '' AS region, '' AS location_group_id`, 'TRUE'],
      ['region', `country, region, '' AS location_group_id`, 'TRUE'],
      ['group', `'' AS country, '' AS region, location_group_id::text`, 'location_group_id IS NOT NULL'],
      ['group-country', `country, '' AS region, location_group_id::text`, 'location_group_id IS NOT NULL'],
      ['group-region', `country, region, location_group_id::text`, 'location_group_id IS NOT NULL'],
    ];
    const periods = [
      ['day', `(updated_at AT TIME ZONE 'UTC')::date`],
      ['month', `date_trunc('month', updated_at AT TIME ZONE 'UTC')::date`],
    ];
    const factsByRollup = await db.query(
      `SELECT * FROM (${scopes
        .flatMap(([scope, keys, where]) =>
          periods.map(
            ([granularity, period]) =>
              `SELECT '${scope}' AS scope, '${granularity}' AS granularity, ${keys}, to_char(${period}, 'YYYY-MM-DD') AS period,
                      ${cells}, count(*)::int AS n
                 FROM location_facts WHERE ${where} GROUP BY 3, 4, 5, 6, 7, 8, 9, 10`,
          ),
        )
        .join(' UNION ALL ')}) AS recount ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10`,
    );
    const rollups = await db.query(
      `SELECT scope, granularity, country, region, location_group_id, to_char(period, 'YYYY-MM-DD') AS period, status,
              has_address,
              has_coordinates, has_location_group AS grouped, locations::int AS n
         FROM location_rollups WHERE locations <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10`,
    );
    return {
      factsByRollup: factsByRollup.rows,
      rollups: rollups.rows,
      factsByDay: factsByDay.rows,
      dayCounters: dayCounters.rows,
      facts: facts.rows,
      counters: counters.rows,
      geo: geo.rows,
      factsByRegion: factsByRegion.rows,
      geoByRegion: geoByRegion.rows,
    };
  } finally {
    await db.query('COMMIT');
  }
}

export type { ServiceabilityStatus };
