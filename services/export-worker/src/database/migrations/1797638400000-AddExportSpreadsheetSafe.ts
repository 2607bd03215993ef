import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request's spreadsheetSafe (csv only: every formula cell of the file is defused for spreadsheets). NOT NULL
 * DEFAULT false, so the requests stored before the option existed read as what they were, exact files.
 */
export class AddExportSpreadsheetSafe1797638400000 implements MigrationInterface {
  name = 'AddExportSpreadsheetSafe1797638400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE export_requests ADD COLUMN spreadsheet_safe boolean NOT NULL DEFAULT false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE export_requests DROP COLUMN spreadsheet_safe`);
  }
}
