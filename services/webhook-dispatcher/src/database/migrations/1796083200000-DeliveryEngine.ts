import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDraftTables } from './1795824000000-CreateSubscriptionsAndDeliveries';

/**
 * The tables of the delivery engine. Replaces the first draft's subscriptions and deliveries, which no released
 * version ever wrote (the service only booted): a subscription now keeps the sealed secrets and the endpoint's
 * state, a notification is stored once however many clients receive it, and every attempt has its own row.
 */
export class DeliveryEngine1796083200000 implements MigrationInterface {
  name = 'DeliveryEngine1796083200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE deliveries`);
    await queryRunner.query(`DROP TABLE subscriptions`);
    await queryRunner.query(`
      CREATE TABLE subscriptions (
        client_id text NOT NULL,
        version integer NOT NULL,
        enabled boolean NOT NULL,
        webhook_url text,
        secret_sealed text,
        secret_version integer,
        previous_secret_sealed text,
        previous_secret_version integer,
        secret_rotated_at timestamptz,
        event_types text[],
        consecutive_failures integer NOT NULL DEFAULT 0,
        disabled_at timestamptz,
        disabled_reason text,
        updated_at timestamptz NOT NULL,
        CONSTRAINT subscriptions_pkey PRIMARY KEY (client_id)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE notifications (
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        path text NOT NULL,
        body text NOT NULL,
        headers jsonb NOT NULL,
        correlation_id text,
        occurred_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT notifications_pkey PRIMARY KEY (event_id)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE deliveries (
        id uuid NOT NULL,
        event_id uuid NOT NULL,
        client_id text NOT NULL,
        status text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        schedule_start integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_attempt_at timestamptz,
        last_status_code integer,
        last_error text,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        CONSTRAINT deliveries_pkey PRIMARY KEY (id),
        CONSTRAINT deliveries_event_id_client_id_key UNIQUE (event_id, client_id),
        CONSTRAINT deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES notifications (event_id),
        CONSTRAINT deliveries_status_check CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED', 'DEAD'))
      )
    `);
    await queryRunner.query(
      `CREATE INDEX deliveries_due_idx ON deliveries (client_id, next_attempt_at) WHERE status = 'PENDING'`,
    );
    await queryRunner.query(`CREATE INDEX deliveries_client_created_idx ON deliveries (client_id, created_at DESC)`);
    await queryRunner.query(`CREATE INDEX deliveries_status_created_idx ON deliveries (status, created_at DESC)`);
    await queryRunner.query(`
      CREATE TABLE delivery_attempts (
        delivery_id uuid NOT NULL,
        attempt integer NOT NULL,
        attempted_at timestamptz NOT NULL,
        url text NOT NULL,
        status_code integer,
        latency_ms integer NOT NULL,
        response_excerpt text,
        error text,
        CONSTRAINT delivery_attempts_pkey PRIMARY KEY (delivery_id, attempt),
        CONSTRAINT delivery_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES deliveries (id)
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE delivery_attempts`);
    await queryRunner.query(`DROP TABLE deliveries`);
    await queryRunner.query(`DROP TABLE notifications`);
    await queryRunner.query(`DROP TABLE subscriptions`);
    await createDraftTables(queryRunner);
  }
}
