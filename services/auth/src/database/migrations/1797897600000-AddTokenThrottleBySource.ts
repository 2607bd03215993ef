import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Throttling of the token endpoint by source as well as by client id: one counter table for every subject
 * (`source:<address>`, `client:<id>`, `pair:<id>:<address>`) replaces token_failures (counters of at most one window:
 * nothing worth carrying over), and the sources each client has authenticated from, which its own failures never
 * lock out.
 */
export class AddTokenThrottleBySource1797897600000 implements MigrationInterface {
  name = 'AddTokenThrottleBySource1797897600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE token_throttle (
        subject text NOT NULL,
        window_start timestamptz NOT NULL,
        failures integer NOT NULL,
        CONSTRAINT token_throttle_pkey PRIMARY KEY (subject)
      )
    `);
    await queryRunner.query(`CREATE INDEX token_throttle_window_start_idx ON token_throttle (window_start)`);
    await queryRunner.query(`
      CREATE TABLE token_known_sources (
        client_id uuid NOT NULL,
        source text NOT NULL,
        last_success_at timestamptz NOT NULL,
        CONSTRAINT token_known_sources_pkey PRIMARY KEY (client_id, source)
      )
    `);
    await queryRunner.query(
      `CREATE INDEX token_known_sources_last_success_at_idx ON token_known_sources (last_success_at)`,
    );
    await queryRunner.query(`DROP TABLE token_failures`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE token_failures (
        client_id uuid NOT NULL,
        window_start timestamptz NOT NULL,
        failures integer NOT NULL,
        CONSTRAINT token_failures_pkey PRIMARY KEY (client_id)
      )
    `);
    await queryRunner.query(`DROP TABLE token_known_sources`);
    await queryRunner.query(`DROP TABLE token_throttle`);
  }
}
