import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@lx/messaging';

/**
 * What issuing tokens and publishing client events need beyond the initial tables: signing keys that are published
 * before they sign (at most one next and one current key), the per-client-id failure counter that throttles the token endpoint (in Postgres so it holds across replicas),
 * and the transactional outbox for CLIENT_* events.
 */
export class AddTokenIssuanceAndOutbox1795824100000 implements MigrationInterface {
  name = 'AddTokenIssuanceAndOutbox1795824100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // activated_at NULL: the next key, published in the JWKS but not signing yet.
    await queryRunner.query(`ALTER TABLE signing_keys ADD COLUMN activated_at timestamptz`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX signing_keys_current_idx ON signing_keys ((true)) WHERE activated_at IS NOT NULL AND retired_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX signing_keys_next_idx ON signing_keys ((true)) WHERE activated_at IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE clients ADD CONSTRAINT clients_scopes_check CHECK (cardinality(scopes) > 0)`);
    await queryRunner.query(`CREATE INDEX clients_kind_idx ON clients (kind)`);
    await queryRunner.query(`
      CREATE TABLE token_failures (
        client_id uuid NOT NULL,
        window_start timestamptz NOT NULL,
        failures integer NOT NULL,
        CONSTRAINT token_failures_pkey PRIMARY KEY (client_id)
      )
    `);
    await createOutboxTable(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropOutboxTable(queryRunner);
    await queryRunner.query(`DROP TABLE token_failures`);
    await queryRunner.query(`DROP INDEX clients_kind_idx`);
    await queryRunner.query(`ALTER TABLE clients DROP CONSTRAINT clients_scopes_check`);
    await queryRunner.query(`DROP INDEX signing_keys_next_idx`);
    await queryRunner.query(`DROP INDEX signing_keys_current_idx`);
    await queryRunner.query(`ALTER TABLE signing_keys DROP COLUMN activated_at`);
  }
}
