import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Runs with search_path set to the service's own schema (see dataSourceOptions). */
export class CreateClientsAndSigningKeys1795824000000 implements MigrationInterface {
  name = 'CreateClientsAndSigningKeys1795824000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE clients (
        id uuid NOT NULL,
        name text NOT NULL,
        kind text NOT NULL,
        scopes text[] NOT NULL,
        secret_hash text NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        webhook_url text,
        webhook_secret_encrypted bytea,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT clients_pkey PRIMARY KEY (id),
        CONSTRAINT clients_kind_check CHECK (kind IN ('RSP', 'OPERATOR', 'ADMIN'))
      )
    `);
    await queryRunner.query(`
      CREATE TABLE signing_keys (
        kid text NOT NULL,
        algorithm text NOT NULL,
        public_jwk jsonb NOT NULL,
        private_key_encrypted bytea NOT NULL,
        created_at timestamptz NOT NULL,
        retired_at timestamptz,
        CONSTRAINT signing_keys_pkey PRIMARY KEY (kid)
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE signing_keys`);
    await queryRunner.query(`DROP TABLE clients`);
  }
}
