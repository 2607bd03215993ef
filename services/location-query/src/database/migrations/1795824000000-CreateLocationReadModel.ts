import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Runs with search_path set to the service's own schema (see dataSourceOptions). */
export class CreateLocationReadModel1795824000000 implements MigrationInterface {
  name = 'CreateLocationReadModel1795824000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE locations (
        id uuid NOT NULL,
        version integer NOT NULL,
        body jsonb NOT NULL,
        location_group_id uuid,
        address_group_id uuid,
        updated_at timestamptz NOT NULL,
        CONSTRAINT locations_pkey PRIMARY KEY (id)
      )
    `);
    await queryRunner.query(`CREATE INDEX locations_location_group_id_idx ON locations (location_group_id, id)`);
    await queryRunner.query(`CREATE INDEX locations_address_group_id_idx ON locations (address_group_id, id)`);
    await queryRunner.query(`CREATE INDEX locations_updated_at_idx ON locations (updated_at, id)`);
    await queryRunner.query(`
      CREATE TABLE location_groups (
        id uuid NOT NULL,
        version integer NOT NULL,
        name text NOT NULL,
        type text NOT NULL,
        CONSTRAINT location_groups_pkey PRIMARY KEY (id)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE address_groups (
        id uuid NOT NULL,
        version integer NOT NULL,
        name text NOT NULL,
        type text NOT NULL,
        CONSTRAINT address_groups_pkey PRIMARY KEY (id)
      )
    `);
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
    await queryRunner.query(`DROP TABLE address_groups`);
    await queryRunner.query(`DROP TABLE location_groups`);
    await queryRunner.query(`DROP TABLE locations`);
  }
}
