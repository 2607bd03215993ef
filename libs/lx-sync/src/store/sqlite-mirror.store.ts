import Database from 'better-sqlite3';
import type { DigestEntry, DigestNode } from '@lx/contracts';
import type { MirrorResource } from '../api/lx-api.client';
import { digestColumnsOf, DigestFolder } from '../digest/mirror-digest';
import { LxSyncError } from '../errors';
import {
  bucketCondition,
  MIRROR_TABLES,
  mirrorSchema,
  type MirrorRow,
  type MirrorStore,
  type MirrorTransaction,
} from './mirror-store';

const SCHEMA = mirrorSchema({
  id: 'text',
  boolean: 'integer',
  falseValue: '0',
  bucket: 'text',
  body: 'text',
  time: 'text',
  digestIndex: (table) =>
    `CREATE INDEX IF NOT EXISTS ${table}_digest ON ${table} (bucket, hash, id, version) WHERE deleted = 0`,
});

/** Rows folded between two turns of the event loop, so a check of a large mirror never stalls the receiver. */
const FOLD_SLICE = 50_000;
/** How long a write waits for another process's transaction (another lx-sync command on the same file). */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * The mirror in a SQLite file (better-sqlite3), in WAL mode (a covering index of the live rows' bucket, hash, id and
 * version serves digests without reading a body): other programs (the RSP's applications, the sqlite3
 * shell, another lx-sync command) read it while lx-sync writes, each reader seeing committed transactions only, and
 * a second writer waits for the first. The connection is synchronous, so this process's transactions are queued: an
 * HTTP request's transaction never interleaves with another's.
 */
export class SqliteMirrorStore implements MirrorStore {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly statements = new Map<string, Database.Statement>();

  constructor(file: string) {
    try {
      this.db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
      this.db.pragma('journal_mode = WAL');
      // In WAL mode NORMAL keeps every commit once the WAL is synced at checkpoints; FULL syncs at each commit, which a
      // webhook acknowledged after its commit needs to survive a power loss.
      this.db.pragma('synchronous = FULL');
    } catch (error) {
      throw new LxSyncError('DATABASE_ERROR', `cannot open the SQLite file ${file}: ${(error as Error).message}`);
    }
  }

  migrate(): Promise<void> {
    return settled(() => void this.db.exec(SCHEMA));
  }

  transaction<T>(work: (transaction: MirrorTransaction) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this.writer());
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  state(key: string): Promise<string | undefined> {
    return this.exclusive(
      () =>
        (this.statement('SELECT value FROM lx_sync_state WHERE key = ?').get(key) as { value: string } | undefined)
          ?.value,
    );
  }

  row(resource: MirrorResource, id: string): Promise<MirrorRow | undefined> {
    return this.exclusive(() => {
      const row = this.statement(`SELECT id, version, deleted, body FROM ${MIRROR_TABLES[resource]} WHERE id = ?`).get(
        id,
      ) as { id: string; version: number; deleted: number; body: string } | undefined;
      return row === undefined ? undefined : { ...row, deleted: row.deleted === 1 };
    });
  }

  digestChildren(resource: MirrorResource, prefix: string, depth: number): Promise<DigestNode[]> {
    // The iteration holds the connection: it runs in the queue, yielding to the event loop now and then (a webhook
    // meanwhile waits for its turn, its request already read).
    return this.exclusive(async () => {
      const folder = new DigestFolder(prefix.length + depth);
      const { where, values } = bucketCondition(prefix, () => '?');
      const rows = this.db
        .prepare(`SELECT bucket, hash FROM ${MIRROR_TABLES[resource]} WHERE deleted = 0${where}`)
        .raw()
        .iterate(...values) as IterableIterator<[string, string]>;
      let folded = 0;
      for (const [bucket, hash] of rows) {
        folder.add(bucket, hash);
        if (++folded % FOLD_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      return folder.result();
    });
  }

  entries(resource: MirrorResource, prefix: string): Promise<DigestEntry[]> {
    const { where, values } = bucketCondition(prefix, () => '?');
    return this.exclusive(
      () =>
        this.db
          .prepare(`SELECT id, version FROM ${MIRROR_TABLES[resource]} WHERE deleted = 0${where} ORDER BY id`)
          .all(...values) as DigestEntry[],
    );
  }

  count(resource: MirrorResource): Promise<number> {
    return this.exclusive(
      () =>
        (
          this.statement(`SELECT count(*) AS n FROM ${MIRROR_TABLES[resource]} WHERE deleted = 0`).get() as {
            n: number;
          }
        ).n,
    );
  }

  forgetDeliveries(before: Date): Promise<number> {
    return this.transaction(() =>
      settled(
        () => this.statement('DELETE FROM lx_sync_deliveries WHERE received_at < ?').run(before.toISOString()).changes,
      ),
    );
  }

  async close(): Promise<void> {
    await this.queue;
    this.statements.clear();
    if (this.db.open) this.db.close();
  }

  /** Runs the work when this connection's earlier work has ended: one statement or transaction at a time. */
  private exclusive<T>(work: () => T | Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Prepared once per SQL text: a load writes millions of rows through a few statements. */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private writer(): MirrorTransaction {
    const run = (sql: string, ...values: unknown[]) => this.statement(sql).run(...values).changes;
    const upsert = (resource: MirrorResource, row: MirrorRow, condition: string, ...values: unknown[]) => {
      const { bucket, hash } = digestColumnsOf(row.id, row.version);
      return run(
        `INSERT INTO ${MIRROR_TABLES[resource]} AS t (id, version, deleted, bucket, hash, body) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO ${
           condition === 'nothing'
             ? 'NOTHING'
             : `UPDATE SET version = excluded.version, deleted = excluded.deleted, hash = excluded.hash,
                body = excluded.body ${condition}`
         }`,
        row.id,
        row.version,
        row.deleted ? 1 : 0,
        bucket,
        hash,
        row.body,
        ...values,
      );
    };
    return {
      apply: (resource, row) => settled(() => upsert(resource, row, 'WHERE excluded.version > t.version') > 0),
      replace: (resource, row, held) =>
        settled(
          () =>
            (held === undefined
              ? upsert(resource, row, 'nothing')
              : upsert(resource, row, 'WHERE t.version = ?', held)) > 0,
        ),
      removeIf: (resource, id, held) =>
        settled(() => run(`DELETE FROM ${MIRROR_TABLES[resource]} WHERE id = ? AND version = ?`, id, held) > 0),
      setState: (key, value) =>
        settled(
          () =>
            void run(
              'INSERT INTO lx_sync_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
              key,
              value,
            ),
        ),
      deleteState: (key) => settled(() => void run('DELETE FROM lx_sync_state WHERE key = ?', key)),
      claimDelivery: (webhookId) =>
        settled(
          () =>
            run(
              'INSERT INTO lx_sync_deliveries (webhook_id, received_at) VALUES (?, ?) ON CONFLICT DO NOTHING',
              webhookId,
              new Date().toISOString(),
            ) > 0,
        ),
    };
  }
}

/** The synchronous call's result (or error) as a promise: the store's interface is asynchronous, SQLite's calls are not. */
function settled<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
