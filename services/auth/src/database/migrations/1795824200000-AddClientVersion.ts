import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version per client, published as the `lx-aggregate-version` header of its CLIENT_* events so that consumers of
 * client.events.v1 can guard on it. Existing clients start at 1; the default is dropped afterwards, so every insert
 * states the version it writes.
 */
export class AddClientVersion1795824200000 implements MigrationInterface {
  name = 'AddClientVersion1795824200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE clients ADD COLUMN version integer NOT NULL DEFAULT 1`);
    await queryRunner.query(`ALTER TABLE clients ALTER COLUMN version DROP DEFAULT`);
    await queryRunner.query(`ALTER TABLE clients ADD CONSTRAINT clients_version_check CHECK (version > 0)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE clients DROP COLUMN version`);
  }
}
