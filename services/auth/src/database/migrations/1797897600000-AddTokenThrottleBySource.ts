import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Throttling of the token endpoint by source as well as by client id: one counter table for every subject
 * (`source:<address>`, `client:<id>`, `pair:<id>:<address>`; failures, and attempts whose check is under way), which
 * takes over from token_failures (counters of at most one window: nothing worth carrying over), and the sources each
 * client has authenticated from, which failures elsewhere never lock out. token_failures stays for the auth pods of
 * the release before while a rolling upgrade replaces them (the Job migrates first); a later release drops it.
 */
export class AddTokenThrottleBySource1797897600000 implements MigrationInterface {
  name = 'AddTokenThrottleBySource1797897600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE token_throttle (
        subject text NOT NULL,
        window_start timestamptz NOT NULL,
        failures integer NOT NULL,
        pending integer NOT NULL,
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
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE token_known_sources`);
    await queryRunner.query(`DROP TABLE token_throttle`);
  }
}
