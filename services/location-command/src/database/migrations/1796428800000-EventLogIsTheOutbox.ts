import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event log becomes the outbox, and writers stop taking the watermark fence's lock.
 *
 * - `events.tx_id`: the id of the transaction that appended the event (`pg_current_xact_id()`, 64 bits, never wraps).
 *   The relay publishes in (tx_id, global_position) order up to the snapshot's xmin: a transaction below it has ended,
 *   and every transaction that has yet to commit has an id at or above it, so nothing can appear behind the relay's
 *   checkpoint (a global_position is drawn at insert time, and a transaction that commits late would leave a gap
 *   behind it). Events recorded before this migration keep tx_id 0: they come first, in position order.
 * - `events.correlation_id`: the request id the relay sends as a Kafka header (the outbox row used to carry it).
 * - `aggregate_state.last_tx`: the transaction of the stream's last append. An append is refused (and retried) when
 *   the stream was last written by a transaction with a higher id, so a stream's events are in tx_id order exactly
 *   as in version order and the relay keeps every key in order.
 * - `relay_checkpoint`: the last (tx_id, global_position) the relay published. It starts before the first event
 *   whose outbox row is unpublished, so nothing the old relay had not yet sent is lost.
 * - `events_after_fence`: refuses events timed at or before the watermark fence. A statement trigger after the insert
 *   (or COPY): its query takes a snapshot after the transaction got its id, which the fence relies on (see
 *   FenceWatermarkHandler).
 *
 * The outbox table stays for one release: pods of the previous version write to it and relay it until the rolling
 * upgrade has replaced them (their events are in the log too, so they may reach Kafka twice; consumers dedupe by
 * event id). A later migration drops it.
 */
export class EventLogIsTheOutbox1796428800000 implements MigrationInterface {
  name = 'EventLogIsTheOutbox1796428800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Both tables at once, in the order this version's writers take them (state rows, then events), so they cannot
    // deadlock with the ALTERs below. (An import batch of the previous version may take events first; then PostgreSQL
    // aborts one of the two, and the migration job or the batch runs again.)
    await queryRunner.query(`LOCK TABLE aggregate_state, events IN ACCESS EXCLUSIVE MODE`);
    // A constant default first (no rewrite of a large table), then the transaction id for every new row.
    await queryRunner.query(`ALTER TABLE events ADD COLUMN tx_id xid8 NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE events ALTER COLUMN tx_id SET DEFAULT pg_current_xact_id()`);
    await queryRunner.query(`ALTER TABLE events ADD COLUMN correlation_id text`);
    await queryRunner.query(`CREATE INDEX events_tx_id_global_position_idx ON events (tx_id, global_position)`);
    await queryRunner.query(`ALTER TABLE aggregate_state ADD COLUMN last_tx xid8 NOT NULL DEFAULT '0'`);
    await queryRunner.query(`
      CREATE TABLE relay_checkpoint (
        singleton boolean NOT NULL DEFAULT true,
        tx_id xid8 NOT NULL,
        position bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT relay_checkpoint_pkey PRIMARY KEY (singleton),
        CONSTRAINT relay_checkpoint_singleton_check CHECK (singleton)
      )
    `);
    await queryRunner.query(`
      INSERT INTO relay_checkpoint (tx_id, position)
      SELECT '0', coalesce(
        (SELECT min(e.global_position) - 1 FROM events e JOIN outbox o
            ON o.published_at IS NULL AND (o.value::json ->> 'id')::uuid = e.event_id),
        (SELECT max(global_position) FROM events),
        0)
    `);
    await queryRunner.query(`
      CREATE FUNCTION events_after_fence() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        earliest timestamptz;
        fence timestamptz;
      BEGIN
        IF current_setting('transaction_isolation') <> 'read committed' THEN
          RAISE EXCEPTION 'events are appended under READ COMMITTED only: the watermark fence check needs a snapshot taken after the transaction got its id'
            USING ERRCODE = 'LXW03';
        END IF;
        SELECT min(recorded_at) INTO earliest FROM appended;
        SELECT fenced_at INTO fence FROM watermark_fence;
        IF earliest <= fence THEN
          RAISE EXCEPTION 'the write''s time % is not after the watermark fence %', earliest, fence
            USING ERRCODE = 'LXW01', DETAIL = json_build_object('timestamp', earliest, 'fencedAt', fence)::text;
        END IF;
        RETURN NULL;
      END
      $$
    `);
    await queryRunner.query(`
      CREATE TRIGGER events_after_fence_trg AFTER INSERT ON events
      REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION events_after_fence()
    `);
    await queryRunner.query(`
      CREATE FUNCTION move_watermark_fence(requested timestamptz) RETURNS timestamptz LANGUAGE plpgsql
      SET search_path FROM CURRENT AS $$
      DECLARE
        moved timestamptz;
      BEGIN
        PERFORM set_config('lx.watermark_fence', 'event-log', true);
        UPDATE watermark_fence SET fenced_at = greatest(fenced_at, requested) RETURNING fenced_at INTO moved;
        RETURN moved;
      END
      $$
    `);
    await queryRunner.query(`
      CREATE FUNCTION watermark_fence_moved_by_function() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_setting('lx.watermark_fence', true) IS DISTINCT FROM 'event-log' THEN
          RAISE EXCEPTION 'the watermark fence is moved by move_watermark_fence() only' USING ERRCODE = 'LXW02';
        END IF;
        RETURN NEW;
      END
      $$
    `);
    await queryRunner.query(`
      CREATE TRIGGER watermark_fence_moved_trg BEFORE UPDATE ON watermark_fence
      FOR EACH ROW EXECUTE FUNCTION watermark_fence_moved_by_function()
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER watermark_fence_moved_trg ON watermark_fence`);
    await queryRunner.query(`DROP FUNCTION watermark_fence_moved_by_function()`);
    await queryRunner.query(`DROP FUNCTION move_watermark_fence(timestamptz)`);
    await queryRunner.query(`DROP TRIGGER events_after_fence_trg ON events`);
    await queryRunner.query(`DROP FUNCTION events_after_fence()`);
    await queryRunner.query(`DROP TABLE relay_checkpoint`);
    await queryRunner.query(`ALTER TABLE aggregate_state DROP COLUMN last_tx`);
    await queryRunner.query(`DROP INDEX events_tx_id_global_position_idx`);
    await queryRunner.query(`ALTER TABLE events DROP COLUMN correlation_id`);
    await queryRunner.query(`ALTER TABLE events DROP COLUMN tx_id`);
  }
}
