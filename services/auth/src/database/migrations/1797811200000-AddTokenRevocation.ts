import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revocation: a client's cut-off before which its tokens are refused (set by disabling it, rotating its secret or
 * narrowing its scopes), and a signing key's revocation time (its tokens are refused, it is no longer published).
 * The partial indexes serve the revocation list, which reads only recent cut-offs and revocations.
 */
export class AddTokenRevocation1797811200000 implements MigrationInterface {
  name = 'AddTokenRevocation1797811200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE clients ADD COLUMN tokens_issued_before timestamptz`);
    await queryRunner.query(
      `CREATE INDEX clients_tokens_issued_before_idx ON clients (tokens_issued_before) WHERE tokens_issued_before IS NOT NULL`,
    );
    await queryRunner.query(`ALTER TABLE signing_keys ADD COLUMN revoked_at timestamptz`);
    await queryRunner.query(
      `ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_revoked_retired_check CHECK (revoked_at IS NULL OR retired_at IS NOT NULL)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE signing_keys DROP COLUMN revoked_at`);
    await queryRunner.query(`ALTER TABLE clients DROP COLUMN tokens_issued_before`);
  }
}
