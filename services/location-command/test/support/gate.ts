import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { requireEnv } from '@lx/testing';

/** The first key of the advisory lock a held statement takes, so held() finds exactly its own gate. */
const GATE_LOCK_CLASS = 424_242;

/** A statement of the service held at a gate until the test opens it. */
export interface Gate {
  /** Whether a statement is waiting at this gate now. */
  held(): Promise<boolean>;
  open(): Promise<void>;
  /** Opens the gate and removes its trigger, function and table. */
  remove(): Promise<void>;
}

/**
 * A gate a statement of the service waits at until the test opens it: a trigger on `table` that, for rows whose
 * `column` is `key`, waits for an advisory lock the test holds (at most 30 s, so a failed test never leaves a
 * connection stuck). Neither holding nor opening it draws a transaction id, so it does not disturb what the watermark
 * fence and the relay read from the transaction ids in flight. By default BEFORE `event` FOR EACH ROW; with
 * `after: 'row'` AFTER it (the row is written, the transaction has its id, nothing is committed); with
 * `after: 'statement'` AFTER INSERT FOR EACH STATEMENT, looking at the inserted rows: it fires after the events
 * table's own statement trigger (events_after_fence, as triggers of one kind fire in name order), so a write held
 * there has passed its watermark fence check.
 */
export async function gate(
  db: Client,
  options: { table: string; event: string; column: string; key: string; after?: 'row' | 'statement' },
): Promise<Gate> {
  const name = `gate_${randomUUID().replace(/-/g, '')}`;
  const lockKey = `${GATE_LOCK_CLASS}, hashtext('${name}')`;
  const matches =
    options.after === 'statement'
      ? `EXISTS (SELECT 1 FROM gate_rows WHERE ${options.column}::text = '${options.key}')`
      : `NEW.${options.column}::text = '${options.key}'`;
  await db.query(`SELECT pg_advisory_lock(${lockKey})`);
  await db.query(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF ${matches} THEN
        PERFORM set_config('lock_timeout', '30s', true);
        PERFORM pg_advisory_xact_lock_shared(${lockKey});
      END IF;
      RETURN NEW;
    END $$`);
  await db.query(
    options.after === 'statement'
      ? `CREATE TRIGGER ${name} AFTER INSERT ON ${options.table} REFERENCING NEW TABLE AS gate_rows
         FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`
      : `CREATE TRIGGER ${name} ${options.after === 'row' ? 'AFTER' : 'BEFORE'} ${options.event} ON ${options.table}
         FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  );
  let opened = false;
  const open = async () => {
    if (opened) return;
    opened = true;
    await db.query(`SELECT pg_advisory_unlock(${lockKey})`);
  };
  return {
    async held() {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND NOT granted AND classid = $1
            AND objid::bigint = (hashtext($2)::bigint & 4294967295)`,
        [GATE_LOCK_CLASS, name],
      );
      return rows[0]!.n > 0;
    },
    open,
    async remove() {
      await open().catch(() => undefined);
      await db.query(`DROP TRIGGER IF EXISTS ${name} ON ${options.table}`);
      await db.query(`DROP FUNCTION IF EXISTS ${name}()`);
    },
  };
}

/** A gate for the write of `streamId` once it has appended its events and passed its watermark fence check. */
export function gateAfterFenceCheck(db: Client, streamId: string): Promise<Gate> {
  return gate(db, { table: 'events', event: 'INSERT', column: 'stream_id', key: streamId, after: 'statement' });
}

/** Where the relay stands: the events after its checkpoint are not yet published. */
export async function unpublishedEvents(db: Client): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM events e, relay_checkpoint c
      WHERE (e.tx_id, e.global_position) > (c.tx_id, c.position)`,
  );
  return rows[0]!.n;
}

/**
 * Holds the event log relay's leader lock of a schema (the relay elects its leader with this advisory lock), so no
 * relay publishes until the test lets go: events pile up committed but unpublished.
 */
export async function holdRelayLock(schema: string): Promise<{ release(): Promise<void> }> {
  const client = new Client({ connectionString: requireEnv('DATABASE_URL') });
  await client.connect();
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [`event-log-relay:${schema}`]);
  let released: Promise<void> | undefined;
  return { release: () => (released ??= client.end()) };
}
