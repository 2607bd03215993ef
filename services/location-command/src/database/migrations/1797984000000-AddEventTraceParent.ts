import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context of the write that appended each event (`traceparent`), when tracing is on: the relay publishes
 * it as the event's header, so the trace crosses the log. Expand only: a nullable column without a default is a
 * catalog change (no table rewrite, whatever the log's size), and a version that does not know it writes NULL.
 */
export class AddEventTraceParent1797984000000 implements MigrationInterface {
  name = 'AddEventTraceParent1797984000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events ADD COLUMN trace_parent text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events DROP COLUMN trace_parent`);
  }
}
