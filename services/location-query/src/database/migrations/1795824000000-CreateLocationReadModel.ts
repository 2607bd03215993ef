import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createConsumerOffsetsTable, dropConsumerOffsetsTable } from '@lx/messaging';

/**
 * The read model of locations and groups. Runs with search_path set to the service's own schema (see
 * dataSourceOptions). Every row carries the aggregate version of the event that wrote it: the projection only
 * overwrites a row with a newer version, which makes redelivered and out-of-order events harmless.
 */
export class CreateLocationReadModel1795824000000 implements MigrationInterface {
  name = 'CreateLocationReadModel1795824000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // body is the Location exactly as served (JSON text in the spec's field order); the other columns exist for
    // filters and the snapshot stream.
    await queryRunner.query(`
      CREATE TABLE locations (
        id uuid NOT NULL,
        version integer NOT NULL,
        body json NOT NULL,
        location_group_id uuid,
        address_group_id uuid,
        updated_at timestamptz NOT NULL,
        CONSTRAINT locations_pkey PRIMARY KEY (id)
      )
    `);
    await queryRunner.query(
      `CREATE INDEX locations_location_group_id_idx ON locations (location_group_id, id) WHERE location_group_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX locations_address_group_id_idx ON locations (address_group_id, id) WHERE address_group_id IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX locations_updated_at_idx ON locations (updated_at)`);
    // A deleted group stays as a tombstone with its version, so a stale create cannot bring it back.
    for (const table of ['location_groups', 'address_groups']) {
      await queryRunner.query(`
        CREATE TABLE ${table} (
          id uuid NOT NULL,
          version integer NOT NULL,
          name text NOT NULL,
          type text NOT NULL,
          deleted boolean NOT NULL,
          CONSTRAINT ${table}_pkey PRIMARY KEY (id)
        )
      `);
      await queryRunner.query(`CREATE INDEX ${table}_name_idx ON ${table} (name COLLATE "C", id) WHERE NOT deleted`);
    }
    await createConsumerOffsetsTable(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropConsumerOffsetsTable(queryRunner);
    await queryRunner.query(`DROP TABLE address_groups`);
    await queryRunner.query(`DROP TABLE location_groups`);
    await queryRunner.query(`DROP TABLE locations`);
  }
}
