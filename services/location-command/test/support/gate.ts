import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';

/** A statement of the service held at a gate until the test opens it. */
export interface Gate {
  /** Whether a statement of `statement`'s text is waiting at a gate now. */
  held(statement: string): Promise<boolean>;
  open(): Promise<void>;
  /** Opens the gate and removes its trigger, function and table. */
  remove(): Promise<void>;
}

/**
 * A gate a statement of the service waits at, row by row, until the test opens it: a trigger BEFORE `event` on
 * `table` that, for rows whose `column` is `key`, sleeps until the gate table has a row (at most 30 s, so a failed
 * test never leaves a connection stuck).
 */
export async function gate(
  db: Client,
  options: { table: string; event: string; column: string; key: string },
): Promise<Gate> {
  const name = `gate_${randomUUID().replace(/-/g, '')}`;
  await db.query(`CREATE TABLE ${name}_open (opened boolean)`);
  await db.query(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.${options.column}::text = '${options.key}' THEN
        FOR i IN 1..3000 LOOP
          EXIT WHEN EXISTS (SELECT 1 FROM ${name}_open);
          PERFORM pg_sleep(0.01);
        END LOOP;
      END IF;
      RETURN NEW;
    END $$`);
  await db.query(
    `CREATE TRIGGER ${name} BEFORE ${options.event} ON ${options.table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  );
  return {
    async held(statement) {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event = 'PgSleep' AND query LIKE $1`,
        [`%${statement}%`],
      );
      return rows[0]!.n > 0;
    },
    async open() {
      await db.query(`INSERT INTO ${name}_open VALUES (true)`);
    },
    async remove() {
      await db.query(`INSERT INTO ${name}_open VALUES (true)`).catch(() => undefined);
      await db.query(`DROP TRIGGER IF EXISTS ${name} ON ${options.table}`);
      await db.query(`DROP FUNCTION IF EXISTS ${name}()`);
      await db.query(`DROP TABLE IF EXISTS ${name}_open`);
    },
  };
}

/** Where the relay stands: the events after its checkpoint are not yet published. */
export async function unpublishedEvents(db: Client): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM events e, relay_checkpoint c
      WHERE (e.tx_id, e.global_position) > (c.tx_id, c.position)`,
  );
  return rows[0]!.n;
}
