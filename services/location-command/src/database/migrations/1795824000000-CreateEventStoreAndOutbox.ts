import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@lx/messaging';

/** Runs with search_path set to the service's own schema (see dataSourceOptions). */
export class CreateEventStoreAndOutbox1795824000000 implements MigrationInterface {
  name = 'CreateEventStoreAndOutbox1795824000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The event store: every fact ever recorded, in one global order, never changed afterwards.
    await queryRunner.query(`
      CREATE TABLE events (
        global_position bigserial NOT NULL,
        stream_id uuid NOT NULL,
        stream_type text NOT NULL,
        stream_version integer NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        payload json NOT NULL,
        recorded_at timestamptz NOT NULL,
        CONSTRAINT events_pkey PRIMARY KEY (global_position),
        CONSTRAINT events_event_id_key UNIQUE (event_id),
        CONSTRAINT events_stream_id_stream_version_key UNIQUE (stream_id, stream_version),
        CONSTRAINT events_stream_version_check CHECK (stream_version > 0)
      )
    `);
    await queryRunner.query(`
      CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'the event store is append-only: % on events is not allowed', TG_OP;
      END
      $$
    `);
    await queryRunner.query(`
      CREATE TRIGGER events_append_only_trg BEFORE UPDATE OR DELETE ON events
      FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()
    `);
    // The current state of each aggregate, written in the same transaction as its events, so a write validates
    // against one row instead of replaying a stream. Every event carries the whole resource, so the row points at its
    // last event (stream_id, version) instead of holding a second copy; the other columns serve the reference checks
    // and the retire query of full-replace imports.
    await queryRunner.query(`
      CREATE TABLE aggregate_state (
        stream_id uuid NOT NULL,
        stream_type text NOT NULL,
        version integer NOT NULL,
        deleted boolean NOT NULL DEFAULT false,
        location_group_id uuid,
        address_group_id uuid,
        serviceability_status text,
        updated_at timestamptz NOT NULL,
        CONSTRAINT aggregate_state_pkey PRIMARY KEY (stream_id)
      )
    `);
    await queryRunner.query(
      `CREATE INDEX aggregate_state_location_group_id_idx ON aggregate_state (location_group_id)
       WHERE location_group_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX aggregate_state_address_group_id_idx ON aggregate_state (address_group_id)
       WHERE address_group_id IS NOT NULL`,
    );
    await createOutboxTable(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropOutboxTable(queryRunner);
    await queryRunner.query(`DROP TABLE aggregate_state`);
    await queryRunner.query(`DROP TABLE events`);
    await queryRunner.query(`DROP FUNCTION events_append_only()`);
  }
}
