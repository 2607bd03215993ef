import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICEABILITY_STATUSES } from '@lx/contracts';

const STATUS_LIST = SERVICEABILITY_STATUSES.map((status) => `'${status}'`).join(', ');
/** The columns every count reads; INCLUDEd in the filter indexes so counting over a filter is an index-only scan. */
const COUNTED = 'status, has_address, has_coordinates, location_group_id';
const KEY =
  'scope, granularity, location_group_id, country, region, period, status, has_address, has_coordinates, has_location_group';

/** Counts every fact into the (empty) rollups; also how the benchmarks fill them after a COPY of facts. */
export const BACKFILL_ROLLUPS = `
      WITH cells AS MATERIALIZED (
        SELECT country, region, coalesce(location_group_id::text, '') AS location_group_id,
               (updated_at AT TIME ZONE 'UTC')::date AS day, coalesce(status, '') AS status, has_address,
               has_coordinates, location_group_id IS NOT NULL AS has_location_group, count(*) AS locations
          FROM location_facts GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
      )
      INSERT INTO location_rollups (${KEY}, locations)
      SELECT s.scope, g.granularity, s.location_group_id, s.country, s.region,
             CASE g.granularity WHEN 'day' THEN c.day ELSE (c.day - extract(day FROM c.day)::integer + 1) END,
             c.status, c.has_address, c.has_coordinates, c.has_location_group, sum(c.locations)
        FROM cells AS c
        CROSS JOIN (VALUES ('day'), ('month')) AS g(granularity)
        CROSS JOIN LATERAL (VALUES ('all', '', '', ''), ('country', '', c.country, ''),
                                   ('region', '', c.country, c.region), ('group', c.location_group_id, '', ''),
                                   ('group-country', c.location_group_id, c.country, ''),
                                   ('group-region', c.location_group_id, c.country, c.region))
                   AS s(scope, location_group_id, country, region)
       WHERE s.scope NOT LIKE 'group%' OR c.location_group_id <> ''
       GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10`;

/**
 * Rollups of the facts by scope (every location, a country, a country and region, a location group, a location group
 * within a country, and within a country and region) and by period (the UTC day and the calendar month of
 * updatedAt), so a modifiedSince / modifiedBefore range with a geography or a location group filter sums whole
 * months, the whole days of the two edge months and counts only the two edge days in the facts (through the
 * (country | region | location group, updated_at) indexes), whatever the range's width or the scope's size. A
 * location group without a range is the sum of its months.
 *
 * The migration builds three indexes and backfills the rollups from the facts in one statement (about 45 s per million
 * facts on the project's machine; writers of the previous release wait for it, readers do not, but for the two index
 * drops at its end). The migration Job runs
 * before the pods are replaced, so pods of the previous release go on writing facts for a while without touching the
 * rollups: `rollups_for_earlier_writers()`, a row trigger on location_facts, adds their changes (the old fact's rows
 * out, the new one's in). This release's projection marks its transactions (`lx.statistics` = `kept`), which the
 * trigger leaves alone. A replay's rebuilt tables do not copy it, so no replay may start before the previous
 * release's pods are gone; a later release drops it, with location_day_counters, which this release still keeps (the
 * previous release reads it; a rollback finds it exact).
 */
export class AddStatisticsRollups1797379200000 implements MigrationInterface {
  name = 'AddStatisticsRollups1797379200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Key columns cannot be null: '' stands for "not this scope's key" and, in status, for "no serviceability status".
    await queryRunner.query(`
      CREATE TABLE location_rollups (
        scope text NOT NULL,
        granularity text NOT NULL,
        location_group_id text NOT NULL,
        country text NOT NULL,
        region text NOT NULL,
        period date NOT NULL,
        status text NOT NULL,
        has_address boolean NOT NULL,
        has_coordinates boolean NOT NULL,
        has_location_group boolean NOT NULL,
        locations bigint NOT NULL,
        CONSTRAINT location_rollups_pkey PRIMARY KEY (${KEY}),
        CONSTRAINT location_rollups_scope_check
          CHECK (scope IN ('all', 'country', 'region', 'group', 'group-country', 'group-region')),
        CONSTRAINT location_rollups_granularity_check CHECK (granularity IN ('day', 'month')),
        CONSTRAINT location_rollups_status_check CHECK (status IN ('', ${STATUS_LIST}))
      )
    `);
    // A region without its country (a region code may exist in several countries), alone and within a group.
    await queryRunner.query(
      `CREATE INDEX location_rollups_region_idx ON location_rollups (region, granularity, period) WHERE scope = 'region'`,
    );
    await queryRunner.query(
      `CREATE INDEX location_rollups_group_region_idx ON location_rollups (location_group_id, region, granularity, period)
         WHERE scope = 'group-region'`,
    );
    // The edge days of a range within a country, a region or a location group, each index covering the other scope
    // columns so that every edge day is an index-only scan. Building an index blocks writers, not readers.
    await queryRunner.query(
      `CREATE INDEX location_facts_country_updated_at_idx ON location_facts (country, updated_at)
         INCLUDE (${COUNTED}, region)`,
    );
    await queryRunner.query(
      `CREATE INDEX location_facts_region_country_updated_at_idx ON location_facts (region, updated_at)
         INCLUDE (${COUNTED}, country)`,
    );
    await queryRunner.query(
      `CREATE INDEX location_facts_location_group_updated_at_idx ON location_facts (location_group_id, updated_at)
         INCLUDE (${COUNTED}, country, region) WHERE location_group_id IS NOT NULL`,
    );

    // The index builds hold a SHARE lock on the facts until the migration commits: the previous release's writers wait
    // from here until the trigger is in place, so no fact is counted twice or missed.
    await queryRunner.query(BACKFILL_ROLLUPS);

    // The trigger runs with the migration's search_path (the service's schema) whoever writes.
    await queryRunner.query(`
      CREATE FUNCTION add_to_rollups(
        fact_country text, fact_region text, fact_group text, fact_updated_at timestamptz, fact_status text,
        fact_has_address boolean, fact_has_coordinates boolean, delta bigint
      ) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
        INSERT INTO location_rollups AS r (${KEY}, locations)
        SELECT s.scope, g.granularity, s.location_group_id, s.country, s.region,
               CASE g.granularity WHEN 'day' THEN d.day ELSE (d.day - extract(day FROM d.day)::integer + 1) END,
               coalesce(fact_status, ''), fact_has_address, fact_has_coordinates, fact_group IS NOT NULL, delta
          FROM (SELECT (fact_updated_at AT TIME ZONE 'UTC')::date AS day) AS d
          CROSS JOIN (VALUES ('day'), ('month')) AS g(granularity)
          CROSS JOIN (VALUES ('all', '', '', ''), ('country', '', fact_country, ''),
                             ('region', '', fact_country, fact_region), ('group', coalesce(fact_group, ''), '', ''),
                             ('group-country', coalesce(fact_group, ''), fact_country, ''),
                             ('group-region', coalesce(fact_group, ''), fact_country, fact_region))
                     AS s(scope, location_group_id, country, region)
         WHERE s.scope NOT LIKE 'group%' OR fact_group IS NOT NULL
         ORDER BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (${KEY}) DO UPDATE SET locations = r.locations + EXCLUDED.locations
      $$
    `);
    await queryRunner.query(`
      CREATE FUNCTION rollups_for_earlier_writers() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          PERFORM add_to_rollups(OLD.country, OLD.region, OLD.location_group_id::text, OLD.updated_at, OLD.status,
                                 OLD.has_address, OLD.has_coordinates, -1);
        END IF;
        PERFORM add_to_rollups(NEW.country, NEW.region, NEW.location_group_id::text, NEW.updated_at, NEW.status,
                               NEW.has_address, NEW.has_coordinates, 1);
        RETURN NULL;
      END
      $$
    `);
    await queryRunner.query(
      `CREATE TRIGGER location_facts_rollups_trg AFTER INSERT OR UPDATE ON location_facts FOR EACH ROW
       WHEN (current_setting('lx.statistics', true) IS DISTINCT FROM 'kept')
       EXECUTE FUNCTION rollups_for_earlier_writers()`,
    );
    // Last, as dropping an index locks out readers too (until the commit right after): the region index without the
    // country, and the group index without updated_at (the new one has the same leading column).
    await queryRunner.query(`DROP INDEX location_facts_region_updated_at_idx`);
    await queryRunner.query(`DROP INDEX location_facts_location_group_id_idx`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS location_facts_rollups_trg ON location_facts`);
    await queryRunner.query(`DROP FUNCTION rollups_for_earlier_writers()`);
    await queryRunner.query(
      `DROP FUNCTION add_to_rollups(text, text, text, timestamptz, text, boolean, boolean, bigint)`,
    );
    await queryRunner.query(
      `CREATE INDEX location_facts_location_group_id_idx ON location_facts (location_group_id) INCLUDE (${COUNTED})
         WHERE location_group_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX location_facts_region_updated_at_idx ON location_facts (region, updated_at) INCLUDE (${COUNTED})`,
    );
    await queryRunner.query(`DROP INDEX location_facts_location_group_updated_at_idx`);
    await queryRunner.query(`DROP INDEX location_facts_region_country_updated_at_idx`);
    await queryRunner.query(`DROP INDEX location_facts_country_updated_at_idx`);
    await queryRunner.query(`DROP TABLE location_rollups`);
  }
}
