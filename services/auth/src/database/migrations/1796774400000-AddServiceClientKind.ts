import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SERVICE kind: the internal services' own client, the only one to hold `locations:internal`. auth's start turns
 * the client it bootstrapped as an OPERATOR with `locations:read` into it (BootstrapServiceClientHandler).
 */
export class AddServiceClientKind1796774400000 implements MigrationInterface {
  name = 'AddServiceClientKind1796774400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE clients DROP CONSTRAINT clients_kind_check`);
    await queryRunner.query(
      `ALTER TABLE clients ADD CONSTRAINT clients_kind_check CHECK (kind IN ('RSP', 'OPERATOR', 'ADMIN', 'SERVICE'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Back to the service client of earlier versions, which the old constraint allows.
    await queryRunner.query(`UPDATE clients SET kind = 'OPERATOR', scopes = '{locations:read}' WHERE kind = 'SERVICE'`);
    await queryRunner.query(`ALTER TABLE clients DROP CONSTRAINT clients_kind_check`);
    await queryRunner.query(
      `ALTER TABLE clients ADD CONSTRAINT clients_kind_check CHECK (kind IN ('RSP', 'OPERATOR', 'ADMIN'))`,
    );
  }
}
