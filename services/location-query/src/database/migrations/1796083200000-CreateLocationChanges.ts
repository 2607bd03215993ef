import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change feed (GET /locations/changes): every location and group change as the RSP receives it, in the order the
 * feed committed it. Each row carries the id of the transaction that inserted it (xid8, never wraps) and a sequence
 * number; the feed reads in (tx_id, seq) order and only rows of transactions below the snapshot's xmin, so a row can
 * never commit behind a position already handed out (see docs/read-side.md, Change feed).
 *
 * change_feed_state is one row: the feed's epoch (a new one whenever the feed is rebuilt, so older cursors are
 * refused instead of read against other positions) and the position up to which changes have been purged.
 */
export class CreateLocationChanges1796083200000 implements MigrationInterface {
  name = 'CreateLocationChanges1796083200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE location_changes (
        tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        seq bigserial NOT NULL,
        event_id uuid NOT NULL,
        resource_type text NOT NULL,
        resource_id uuid NOT NULL,
        version integer NOT NULL,
        occurred_at timestamptz NOT NULL,
        body json NOT NULL,
        CONSTRAINT location_changes_pkey PRIMARY KEY (tx_id, seq),
        CONSTRAINT location_changes_event_id_key UNIQUE (event_id),
        CONSTRAINT location_changes_resource_version_key UNIQUE (resource_type, resource_id, version)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE change_feed_state (
        singleton boolean NOT NULL DEFAULT true,
        epoch text NOT NULL DEFAULT left(replace(gen_random_uuid()::text, '-', ''), 16),
        purged_tx_id xid8 NOT NULL DEFAULT '0',
        purged_seq bigint NOT NULL DEFAULT 0,
        purged_at timestamptz,
        CONSTRAINT change_feed_state_pkey PRIMARY KEY (singleton),
        CONSTRAINT change_feed_state_singleton_check CHECK (singleton)
      )
    `);
    await queryRunner.query(`INSERT INTO change_feed_state DEFAULT VALUES`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE change_feed_state`);
    await queryRunner.query(`DROP TABLE location_changes`);
  }
}
