import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICEABILITY_STATUSES } from '@lx/contracts';
import { createConsumerOffsetsTable, dropConsumerOffsetsTable } from '@lx/messaging';

const STATUS_LIST = SERVICEABILITY_STATUSES.map((status) => `'${status}'`).join(', ');
/** The columns every count reads; INCLUDEd in the filter indexes so counting over a filter is an index-only scan. */
const COUNTED = 'status, has_address, has_coordinates, location_group_id';
const COUNTER_DIMENSIONS = `
  status text NOT NULL,
  has_address boolean NOT NULL,
  has_coordinates boolean NOT NULL,
  has_location_group boolean NOT NULL,
  locations bigint NOT NULL`;

/**
 * Facts per location and the counters maintained from them in the same transaction. Runs with search_path set to
 * the service's own schema (see dataSourceOptions).
 */
export class CreateLocationFacts1795824000000 implements MigrationInterface {
  name = 'CreateLocationFacts1795824000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // status is null for a location without serviceability; version guards every update.
    await queryRunner.query(`
      CREATE TABLE location_facts (
        location_id uuid NOT NULL,
        version integer NOT NULL,
        status text,
        has_address boolean NOT NULL,
        has_coordinates boolean NOT NULL,
        location_group_id uuid,
        address_group_id uuid,
        country text NOT NULL,
        region text NOT NULL,
        locality text NOT NULL,
        postal_code text NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT location_facts_pkey PRIMARY KEY (location_id),
        CONSTRAINT location_facts_status_check CHECK (status IN (${STATUS_LIST}))
      )
    `);
    for (const [name, key, where] of [
      ['location_group_id', 'location_group_id', 'WHERE location_group_id IS NOT NULL'],
      ['address_group_id', 'address_group_id', 'WHERE address_group_id IS NOT NULL'],
      ['locality', 'locality', ''],
      ['postal_code', 'postal_code', ''],
      ['updated_at', 'updated_at', ''],
      // A region with an updatedAt range (the day counters have no geography).
      ['region_updated_at', 'region, updated_at', ''],
    ] as const) {
      await queryRunner.query(
        `CREATE INDEX location_facts_${name}_idx ON location_facts (${key}) INCLUDE (${COUNTED}) ${where}`,
      );
    }
    // '' in status: no serviceability status (a key column cannot be null).
    await queryRunner.query(`
      CREATE TABLE location_counters (${COUNTER_DIMENSIONS},
        CONSTRAINT location_counters_pkey PRIMARY KEY (status, has_address, has_coordinates, has_location_group),
        CONSTRAINT location_counters_status_check CHECK (status IN ('', ${STATUS_LIST}))
      )
    `);
    await queryRunner.query(`
      CREATE TABLE location_geo_counters (
        country text NOT NULL,
        region text NOT NULL,${COUNTER_DIMENSIONS},
        CONSTRAINT location_geo_counters_pkey
          PRIMARY KEY (country, region, status, has_address, has_coordinates, has_location_group),
        CONSTRAINT location_geo_counters_status_check CHECK (status IN ('', ${STATUS_LIST}))
      )
    `);
    await queryRunner.query(`CREATE INDEX location_geo_counters_region_idx ON location_geo_counters (region)`);
    // Per UTC day of updatedAt: modifiedSince / modifiedBefore sum whole days here and count only the two boundary
    // days in the facts.
    await queryRunner.query(`
      CREATE TABLE location_day_counters (
        day date NOT NULL,${COUNTER_DIMENSIONS},
        CONSTRAINT location_day_counters_pkey
          PRIMARY KEY (day, status, has_address, has_coordinates, has_location_group),
        CONSTRAINT location_day_counters_status_check CHECK (status IN ('', ${STATUS_LIST}))
      )
    `);
    await createConsumerOffsetsTable(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropConsumerOffsetsTable(queryRunner);
    await queryRunner.query(`DROP TABLE location_day_counters`);
    await queryRunner.query(`DROP TABLE location_geo_counters`);
    await queryRunner.query(`DROP TABLE location_counters`);
    await queryRunner.query(`DROP TABLE location_facts`);
  }
}
