import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@lx/messaging';

/**
 * Turns export requests into durable jobs: the lease a replica holds while generating, the attempt schedule, progress,
 * the file's checksum and retention, the optional group filter and the Idempotency-Key; adds the per-client request
 * counters of the rate limit and the outbox of the EXPORT_COMPLETED / EXPORT_FAILED events.
 */
export class ExportJobs1795910400000 implements MigrationInterface {
  name = 'ExportJobs1795910400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE export_requests
        ADD COLUMN location_group_id uuid,
        ADD COLUMN idempotency_key text,
        ADD COLUMN request_hash text,
        ADD COLUMN lease_owner text,
        ADD COLUMN lease_expires_at timestamptz,
        ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN rows_written bigint NOT NULL DEFAULT 0,
        ADD COLUMN rows_total bigint,
        ADD COLUMN sha256 text,
        ADD COLUMN size_bytes bigint,
        ADD COLUMN file_expires_at timestamptz,
        ADD COLUMN file_deleted_at timestamptz
    `);
    await queryRunner.query(`DROP INDEX export_requests_pending_idx`);
    await queryRunner.query(
      `CREATE INDEX export_requests_claimable_idx ON export_requests (next_attempt_at) WHERE status = 'PENDING'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX export_requests_idempotency_key_idx ON export_requests (client_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX export_requests_retained_idx ON export_requests (file_expires_at)
        WHERE status = 'COMPLETED' AND file_deleted_at IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE export_rate_windows (
        client_id text NOT NULL,
        window_start timestamptz NOT NULL,
        requests integer NOT NULL,
        CONSTRAINT export_rate_windows_pkey PRIMARY KEY (client_id, window_start)
      )
    `);
    await createOutboxTable(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropOutboxTable(queryRunner);
    await queryRunner.query(`DROP TABLE export_rate_windows`);
    await queryRunner.query(`DROP INDEX export_requests_retained_idx`);
    await queryRunner.query(`DROP INDEX export_requests_idempotency_key_idx`);
    await queryRunner.query(`DROP INDEX export_requests_claimable_idx`);
    await queryRunner.query(
      `CREATE INDEX export_requests_pending_idx ON export_requests (created_at) WHERE status = 'PENDING'`,
    );
    await queryRunner.query(`
      ALTER TABLE export_requests
        DROP COLUMN location_group_id, DROP COLUMN idempotency_key, DROP COLUMN request_hash,
        DROP COLUMN lease_owner, DROP COLUMN lease_expires_at, DROP COLUMN next_attempt_at,
        DROP COLUMN rows_written, DROP COLUMN rows_total, DROP COLUMN sha256, DROP COLUMN size_bytes,
        DROP COLUMN file_expires_at, DROP COLUMN file_deleted_at
    `);
  }
}
