import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention also deletes what the attempts of a FAILED export left in the bucket (PurgeExpiredExportsSchedule): the
 * FAILED requests not yet purged, by the time they failed, as export_requests_retained_idx serves the COMPLETED ones.
 */
export class AddExportFailedRetentionIndex1797724800000 implements MigrationInterface {
  name = 'AddExportFailedRetentionIndex1797724800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX export_requests_failed_retained_idx ON export_requests (updated_at)
        WHERE status = 'FAILED' AND file_deleted_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX export_requests_failed_retained_idx`);
  }
}
