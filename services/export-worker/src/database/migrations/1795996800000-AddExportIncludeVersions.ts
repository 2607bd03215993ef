import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request's includeVersions (json only: each row of the file ends with its version). NOT NULL DEFAULT false, so
 * the requests stored before the flag existed read as what they were, exports without versions.
 */
export class AddExportIncludeVersions1795996800000 implements MigrationInterface {
  name = 'AddExportIncludeVersions1795996800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE export_requests ADD COLUMN include_versions boolean NOT NULL DEFAULT false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE export_requests DROP COLUMN include_versions`);
  }
}
