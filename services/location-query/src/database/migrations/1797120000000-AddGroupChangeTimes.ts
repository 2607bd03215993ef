import type { MigrationInterface, QueryRunner } from 'typeorm';

const GROUP_TABLES = ['location_groups', 'address_groups'] as const;

/**
 * When each group last changed (`changed_at`: the timestamp of the event that wrote the row) and when it was deleted
 * (`deleted_at`, set exactly when `deleted`), for group lists by modifiedSince and incremental exports, which show
 * deleted groups as tombstones.
 *
 * Rows written before this migration have no known time: they get the migration's time, later than their real one.
 * A list or export by modifiedSince then shows them once more than needed (a harmless repeat for an RSP applying
 * changes in order), never less; a replay of the read model gives them their events' times.
 *
 * The migration Job runs before the pods are replaced, so pods of the previous release go on projecting group events
 * into these tables without the new columns for a while. `group_change_times()` fills the times they leave out (the
 * write's time, at or after the event's: again a repeat at worst, never a change missed), so their writes neither
 * break the constraints (which would dead-letter the event) nor leave a change without its time. The projection of
 * this release sets both columns on every write, which the trigger leaves as they are. A replay's rebuilt tables do not
 * copy it (nor need it); a later release drops it where it is left (IF EXISTS).
 */
export class AddGroupChangeTimes1797120000000 implements MigrationInterface {
  name = 'AddGroupChangeTimes1797120000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION group_change_times() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          NEW.changed_at := coalesce(NEW.changed_at, now());
        ELSIF NEW.version <> OLD.version AND NEW.changed_at IS NOT DISTINCT FROM OLD.changed_at THEN
          NEW.changed_at := now();
        END IF;
        NEW.deleted_at := CASE WHEN NEW.deleted THEN coalesce(NEW.deleted_at, NEW.changed_at) END;
        RETURN NEW;
      END
      $$
    `);
    for (const table of GROUP_TABLES) {
      await queryRunner.query(
        `ALTER TABLE ${table} ADD COLUMN changed_at timestamptz, ADD COLUMN deleted_at timestamptz`,
      );
      await queryRunner.query(`UPDATE ${table} SET changed_at = now(), deleted_at = CASE WHEN deleted THEN now() END`);
      await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN changed_at SET NOT NULL`);
      await queryRunner.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_deleted_at_check CHECK (deleted = (deleted_at IS NOT NULL))`,
      );
      await queryRunner.query(`CREATE INDEX ${table}_changed_at_idx ON ${table} (changed_at)`);
      await queryRunner.query(
        `CREATE TRIGGER ${table}_change_times_trg BEFORE INSERT OR UPDATE ON ${table}
         FOR EACH ROW EXECUTE FUNCTION group_change_times()`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of GROUP_TABLES) {
      // A replay's tables (LIKE … INCLUDING ALL) copy no trigger.
      await queryRunner.query(`DROP TRIGGER IF EXISTS ${table}_change_times_trg ON ${table}`);
      await queryRunner.query(`DROP INDEX ${table}_changed_at_idx`);
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_deleted_at_check`);
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN deleted_at, DROP COLUMN changed_at`);
    }
    await queryRunner.query(`DROP FUNCTION group_change_times()`);
  }
}
