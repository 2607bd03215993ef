import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Runs with search_path set to the service's own schema (see dataSourceOptions). */
export class CreateLocationFacts1795824000000 implements MigrationInterface {
  name = 'CreateLocationFacts1795824000000';

  async up(queryRunner: QueryRunner): Promise<void> {
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
        CONSTRAINT location_facts_pkey PRIMARY KEY (location_id)
      )
    `);
    await queryRunner.query(`CREATE INDEX location_facts_updated_at_idx ON location_facts (updated_at)`);
    await queryRunner.query(`
      CREATE TABLE consumer_offsets (
        group_id text NOT NULL,
        topic text NOT NULL,
        partition integer NOT NULL,
        next_offset bigint NOT NULL,
        CONSTRAINT consumer_offsets_pkey PRIMARY KEY (group_id, topic, partition)
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE consumer_offsets`);
    await queryRunner.query(`DROP TABLE location_facts`);
  }
}
