import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context of the intake's span for each notification (`traceparent`), when tracing is on: every
 * attempt to deliver it, however much later, continues that trace. Expand only: a nullable column without a default
 * is a catalog change, and a version that does not know it writes NULL.
 */
export class AddNotificationTraceParent1797984000000 implements MigrationInterface {
  name = 'AddNotificationTraceParent1797984000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE notifications ADD COLUMN trace_parent text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE notifications DROP COLUMN trace_parent`);
  }
}
