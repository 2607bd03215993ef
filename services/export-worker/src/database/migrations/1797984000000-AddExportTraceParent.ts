import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context of the request that asked for each export (`traceparent`), when tracing is on: its
 * generation, whichever replica claims it and however much later, continues that trace. Expand only: a nullable
 * column without a default is a catalog change, and a version that does not know it writes NULL.
 */
export class AddExportTraceParent1797984000000 implements MigrationInterface {
  name = 'AddExportTraceParent1797984000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE export_requests ADD COLUMN trace_parent text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE export_requests DROP COLUMN trace_parent`);
  }
}
