import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@lx/messaging';

/**
 * The outbox of the events the dispatcher publishes (WEBHOOK_ENDPOINT_DISABLED), written in the transaction that
 * changes the endpoint's state.
 */
export class EndpointEventsOutbox1796256000000 implements MigrationInterface {
  name = 'EndpointEventsOutbox1796256000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createOutboxTable(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropOutboxTable(queryRunner);
  }
}
