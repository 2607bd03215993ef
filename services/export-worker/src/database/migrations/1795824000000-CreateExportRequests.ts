import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Runs with search_path set to the service's own schema (see dataSourceOptions). */
export class CreateExportRequests1795824000000 implements MigrationInterface {
  name = 'CreateExportRequests1795824000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE export_requests (
        id uuid NOT NULL,
        client_id text NOT NULL,
        format text NOT NULL,
        modified_since timestamptz,
        status text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        object_key text,
        export_url text,
        download_expires_at timestamptz,
        export_timestamp timestamptz,
        total_count integer,
        error_code text,
        error_message text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT export_requests_pkey PRIMARY KEY (id),
        CONSTRAINT export_requests_format_check CHECK (format IN ('json', 'csv')),
        CONSTRAINT export_requests_status_check CHECK (status IN ('PENDING', 'COMPLETED', 'FAILED'))
      )
    `);
    await queryRunner.query(
      `CREATE INDEX export_requests_pending_idx ON export_requests (created_at) WHERE status = 'PENDING'`,
    );
    await queryRunner.query(
      `CREATE INDEX export_requests_client_id_created_at_idx ON export_requests (client_id, created_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE export_requests`);
  }
}
