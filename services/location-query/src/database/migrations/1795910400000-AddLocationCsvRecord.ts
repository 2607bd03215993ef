import type { MigrationInterface, QueryRunner } from 'typeorm';
import { type Location, locationCsvRecord } from '@lx/contracts';

/** Rows the backfill reads and rewrites per statement. */
const BACKFILL_ROWS = 2000;

/**
 * Stores each location's CSV record beside its JSON body, so a CSV export copies stored text as a JSON export does
 * instead of parsing every location (see docs/exports.md). Rows written before this migration get their record here,
 * in batches ordered by id; the column is NOT NULL afterwards, and the projection writes both from then on.
 */
export class AddLocationCsvRecord1795910400000 implements MigrationInterface {
  name = 'AddLocationCsvRecord1795910400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE locations ADD COLUMN csv text`);
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = (await queryRunner.query(
        `SELECT id, body::text AS body FROM locations WHERE id > $1 ORDER BY id LIMIT ${BACKFILL_ROWS}`,
        [after],
      )) as { id: string; body: string }[];
      if (rows.length === 0) break;
      await queryRunner.query(
        `UPDATE locations l SET csv = r.csv FROM unnest($1::uuid[], $2::text[]) AS r(id, csv) WHERE l.id = r.id`,
        [rows.map((row) => row.id), rows.map((row) => locationCsvRecord(JSON.parse(row.body) as Location))],
      );
      after = rows[rows.length - 1]!.id;
    }
    await queryRunner.query(`ALTER TABLE locations ALTER COLUMN csv SET NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE locations DROP COLUMN csv`);
  }
}
