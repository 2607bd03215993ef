import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Runs with search_path set to the service's own schema (see dataSourceOptions). */
export class CreateEventStoreAndOutbox1795824000000 implements MigrationInterface {
  name = 'CreateEventStoreAndOutbox1795824000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE events (
        global_position bigserial NOT NULL,
        stream_id uuid NOT NULL,
        stream_type text NOT NULL,
        stream_version integer NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        payload jsonb NOT NULL,
        recorded_at timestamptz NOT NULL,
        CONSTRAINT events_pkey PRIMARY KEY (global_position),
        CONSTRAINT events_event_id_key UNIQUE (event_id),
        CONSTRAINT events_stream_id_stream_version_key UNIQUE (stream_id, stream_version)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE aggregate_state (
        stream_id uuid NOT NULL,
        stream_type text NOT NULL,
        version integer NOT NULL,
        state jsonb NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT aggregate_state_pkey PRIMARY KEY (stream_id)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE outbox (
        global_position bigint NOT NULL,
        topic text NOT NULL,
        message_key text NOT NULL,
        published_at timestamptz,
        CONSTRAINT outbox_pkey PRIMARY KEY (global_position),
        CONSTRAINT outbox_global_position_fkey FOREIGN KEY (global_position) REFERENCES events (global_position)
      )
    `);
    await queryRunner.query(
      `CREATE INDEX outbox_unpublished_idx ON outbox (global_position) WHERE published_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE outbox`);
    await queryRunner.query(`DROP TABLE aggregate_state`);
    await queryRunner.query(`DROP TABLE events`);
  }
}
