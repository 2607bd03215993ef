import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createConsumerOffsetsTable, dropConsumerOffsetsTable } from '@lx/messaging';

/** The first draft's tables (replaced by DeliveryEngine1796083200000; its down migration restores them). */
export async function createDraftTables(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(`
    CREATE TABLE subscriptions (
      client_id text NOT NULL,
      webhook_url text,
      signing_secret_encrypted bytea,
      enabled boolean NOT NULL,
      updated_at timestamptz NOT NULL,
      CONSTRAINT subscriptions_pkey PRIMARY KEY (client_id)
    )
  `);
  await queryRunner.query(`
    CREATE TABLE deliveries (
      id uuid NOT NULL,
      client_id text NOT NULL,
      event_id uuid NOT NULL,
      event_type text NOT NULL,
      url text NOT NULL,
      payload jsonb NOT NULL,
      status text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      last_status_code integer,
      last_error text,
      created_at timestamptz NOT NULL,
      delivered_at timestamptz,
      CONSTRAINT deliveries_pkey PRIMARY KEY (id),
      CONSTRAINT deliveries_client_id_event_id_key UNIQUE (client_id, event_id),
      CONSTRAINT deliveries_status_check CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED', 'DEAD'))
    )
  `);
  await queryRunner.query(`CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'PENDING'`);
}

/** Runs with search_path set to the service's own schema (see dataSourceOptions). */
export class CreateSubscriptionsAndDeliveries1795824000000 implements MigrationInterface {
  name = 'CreateSubscriptionsAndDeliveries1795824000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createDraftTables(queryRunner);
    await createConsumerOffsetsTable(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropConsumerOffsetsTable(queryRunner);
    await queryRunner.query(`DROP TABLE deliveries`);
    await queryRunner.query(`DROP TABLE subscriptions`);
  }
}
