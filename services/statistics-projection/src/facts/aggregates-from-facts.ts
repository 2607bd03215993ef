import { type ProjectionTransaction, quoteIdentifier } from '@lx/messaging';
import { COUNTER_TABLES, ROLLUP_SCOPE_KEYS, ROLLUP_SCOPES } from './location-fact';
import { COUNTED_COLUMNS, type StatisticsTables } from './statistics-tables';

const COUNTED = COUNTED_COLUMNS.join(', ');

/** Each scope's keys as SQL over a cell `c` (the keys it does not keep are ''), and whether it needs a group. */
const SCOPE_ROWS = ROLLUP_SCOPES.map((scope) => {
  const keeps = ROLLUP_SCOPE_KEYS[scope];
  const key = (kept: boolean, column: string) => (kept ? `c.${column}` : `''`);
  return `('${scope}', ${key(keeps.group, 'location_group_id')}, ${key(keeps.country, 'country')}, ${key(keeps.region, 'region')}, ${keeps.group})`;
}).join(', ');

/**
 * Derives every counters table and the rollups from the facts, in one statement (one pass over the facts; with the
 * indexes built again, 38 s per million facts on the project's machine): what the projection keeps row by row,
 * computed at once. A replay fills only the facts until it has caught up with the log
 * (LocationFactsProjection.factsOnly), then this, then goes on with the full projection: maintaining twelve rollup
 * rows per fact in every batch made a replay three times slower (docs/benchmarks.md, Scale). The tables are emptied
 * first, so running it again gives the same result.
 *
 * The cells come from the same definitions as the projection's (COUNTER_TABLES, ROLLUP_SCOPE_KEYS; the day and the
 * month of updated_at in UTC as Postgres computes them), and the replay tests compare the result with a recount.
 */
export async function fillAggregatesFromFacts(
  transaction: ProjectionTransaction,
  tables: StatisticsTables,
): Promise<void> {
  const aggregates = [tables.counters, tables.geoCounters, tables.dayCounters, tables.rollups];
  await transaction.query(`TRUNCATE ${aggregates.map(quoteIdentifier).join(', ')}`);
  const counters = (['counters', 'geoCounters', 'dayCounters'] as const).map((table, index) => {
    const columns = [...COUNTER_TABLES[table], COUNTED].join(', ');
    return `counted_${index} AS (
      INSERT INTO ${quoteIdentifier(tables[table])} (${columns}, locations)
      SELECT ${columns}, sum(locations) FROM cells GROUP BY ${columns}
    )`;
  });
  await transaction.query(`
    WITH cells AS MATERIALIZED (
      SELECT country, region, coalesce(location_group_id::text, '') AS location_group_id,
             (updated_at AT TIME ZONE 'UTC')::date AS day, coalesce(status, '') AS status, has_address,
             has_coordinates, location_group_id IS NOT NULL AS has_location_group, count(*) AS locations
        FROM ${quoteIdentifier(tables.facts)} GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ), ${counters.join(', ')}
    INSERT INTO ${quoteIdentifier(tables.rollups)} (scope, granularity, location_group_id, country, region, period, ${COUNTED}, locations)
    SELECT s.scope, g.granularity, s.location_group_id, s.country, s.region,
           CASE g.granularity WHEN 'day' THEN c.day ELSE date_trunc('month', c.day)::date END,
           c.status, c.has_address, c.has_coordinates, c.has_location_group, sum(c.locations)
      FROM cells AS c
      CROSS JOIN (VALUES ('day'), ('month')) AS g(granularity)
      CROSS JOIN LATERAL (VALUES ${SCOPE_ROWS}) AS s(scope, location_group_id, country, region, grouped)
     WHERE NOT s.grouped OR c.location_group_id <> ''
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10`);
}
