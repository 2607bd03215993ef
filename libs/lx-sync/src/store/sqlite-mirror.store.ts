import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type BindValues, Database, type Statement } from 'node-sqlite3-wasm';
import type { DigestEntry, DigestNode } from '@lx/contracts';
import type { MirrorResource } from '../api/lx-api.client';
import { digestColumnsOf, DigestFolder } from '../digest/mirror-digest';
import { LxSyncError } from '../errors';
import {
  bucketCondition,
  MIRROR_TABLES,
  type MirrorRow,
  type MirrorStore,
  type MirrorTransaction,
} from './mirror-store';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS lx_sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS lx_sync_deliveries (webhook_id TEXT PRIMARY KEY, received_at TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS lx_sync_deliveries_received_at ON lx_sync_deliveries (received_at);
  ${Object.values(MIRROR_TABLES)
    .map(
      (table) => `
  CREATE TABLE IF NOT EXISTS ${table} (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
    bucket TEXT NOT NULL, hash TEXT NOT NULL, body TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS ${table}_bucket ON ${table} (bucket);`,
    )
    .join('')}`;

/**
 * The mirror in a SQLite file (SQLite compiled to WebAssembly: nothing to build on install). SQLite has one writer
 * and this connection is synchronous, so transactions are queued: an HTTP request's transaction never interleaves
 * with another's.
 *
 * One lx-sync process at a time uses the file: its pid is kept beside it (`<file>.lx-sync.pid`) and a second process
 * is refused. The WebAssembly build locks the file with a directory (`<file>.lock`) that a killed process leaves
 * behind; with the pid file lx-sync knows such a lock is stale and removes it. (PostgreSQL has no such limit.)
 */
export class SqliteMirrorStore implements MirrorStore {
  readonly kind = 'sqlite';
  private readonly db: Database;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly statements = new Map<string, Statement>();

  private readonly pidFile: string;

  constructor(file: string) {
    this.pidFile = `${file}.lx-sync.pid`;
    claimFile(file, this.pidFile);
    try {
      this.db = new Database(file);
    } catch (error) {
      rmSync(this.pidFile, { force: true });
      throw new LxSyncError('DATABASE_ERROR', `cannot open the SQLite file ${file}: ${(error as Error).message}`);
    }
  }

  migrate(): Promise<void> {
    return settled(() => this.db.exec(SCHEMA));
  }

  transaction<T>(work: (transaction: MirrorTransaction) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this.writer());
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        this.db.exec('ROLLBACK');
        throw error;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  state(key: string): Promise<string | undefined> {
    return settled(
      () => (this.db.get('SELECT value FROM lx_sync_state WHERE key = ?', key) as { value: string } | null)?.value,
    );
  }

  row(resource: MirrorResource, id: string): Promise<MirrorRow | undefined> {
    return settled(() => {
      const row = this.db.get(`SELECT id, version, deleted, body FROM ${MIRROR_TABLES[resource]} WHERE id = ?`, id) as {
        id: string;
        version: number;
        deleted: number;
        body: string;
      } | null;
      return row === null ? undefined : { ...row, deleted: row.deleted === 1 };
    });
  }

  digestChildren(resource: MirrorResource, prefix: string, depth: number): Promise<DigestNode[]> {
    return settled(() => this.fold(resource, prefix, depth));
  }

  private fold(resource: MirrorResource, prefix: string, depth: number): DigestNode[] {
    const folder = new DigestFolder(prefix.length + depth);
    const { where, values } = bucketCondition(prefix, () => '?');
    const statement = this.db.prepare(`SELECT bucket, hash FROM ${MIRROR_TABLES[resource]} WHERE deleted = 0${where}`);
    try {
      for (const row of statement.iterate(values) as Iterable<{ bucket: string; hash: string }>) {
        folder.add(row.bucket, row.hash);
      }
    } finally {
      statement.finalize();
    }
    return folder.result();
  }

  entries(resource: MirrorResource, prefix: string): Promise<DigestEntry[]> {
    const { where, values } = bucketCondition(prefix, () => '?');
    return settled(
      () =>
        this.db.all(
          `SELECT id, version FROM ${MIRROR_TABLES[resource]} WHERE deleted = 0${where} ORDER BY id`,
          values,
        ) as unknown as DigestEntry[],
    );
  }

  count(resource: MirrorResource): Promise<number> {
    return settled(
      () => (this.db.get(`SELECT count(*) AS n FROM ${MIRROR_TABLES[resource]} WHERE deleted = 0`) as { n: number }).n,
    );
  }

  forgetDeliveries(before: Date): Promise<number> {
    return this.transaction(() =>
      settled(() =>
        Number(this.db.run('DELETE FROM lx_sync_deliveries WHERE received_at < ?', before.toISOString()).changes),
      ),
    );
  }

  async close(): Promise<void> {
    await this.queue;
    for (const statement of this.statements.values()) statement.finalize();
    this.statements.clear();
    if (this.db.isOpen) this.db.close();
    rmSync(this.pidFile, { force: true });
  }

  /** Prepared once per SQL text and kept until close: a load writes millions of rows through a few statements. */
  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private writer(): MirrorTransaction {
    const db = { run: (sql: string, values: BindValues) => this.statement(sql).run(values) };
    const upsert = (resource: MirrorResource, row: MirrorRow, onlyNewer: boolean) => {
      const table = MIRROR_TABLES[resource];
      const { bucket, hash } = digestColumnsOf(row.id, row.version);
      return Number(
        db.run(
          `INSERT INTO ${table} (id, version, deleted, bucket, hash, body) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted,
             hash = excluded.hash, body = excluded.body
           ${onlyNewer ? `WHERE excluded.version > ${table}.version` : ''}`,
          [row.id, row.version, row.deleted ? 1 : 0, bucket, hash, row.body],
        ).changes,
      );
    };
    return {
      // One writer at a time (BEGIN IMMEDIATE, and this store's queue): what is read stays so until the commit.
      lockVersion: (resource, id) =>
        settled(
          () =>
            (
              this.statement(`SELECT version FROM ${MIRROR_TABLES[resource]} WHERE id = ?`).get(id) as {
                version: number;
              } | null
            )?.version,
        ),
      apply: (resource, row) => settled(() => upsert(resource, row, true) > 0),
      put: (resource, row) => settled(() => void upsert(resource, row, false)),
      remove: (resource, id) => settled(() => void db.run(`DELETE FROM ${MIRROR_TABLES[resource]} WHERE id = ?`, id)),
      setState: (key, value) =>
        settled(
          () =>
            void db.run(
              'INSERT INTO lx_sync_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
              [key, value],
            ),
        ),
      deleteState: (key) => settled(() => void db.run('DELETE FROM lx_sync_state WHERE key = ?', key)),
      claimDelivery: (webhookId) =>
        settled(
          () =>
            Number(
              db.run('INSERT INTO lx_sync_deliveries (webhook_id, received_at) VALUES (?, ?) ON CONFLICT DO NOTHING', [
                webhookId,
                new Date().toISOString(),
              ]).changes,
            ) > 0,
        ),
    };
  }
}

/** Makes this process the file's only user, removing the lock a dead one left; refuses while another one lives. */
function claimFile(file: string, pidFile: string): void {
  let holder: number | undefined;
  try {
    holder = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    holder = undefined;
  }
  if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
    throw new LxSyncError(
      'DATABASE_ERROR',
      `another lx-sync (pid ${holder}) is using ${file}: with SQLite, one command at a time (stop it, or use PostgreSQL)`,
    );
  }
  // No live holder: a lock directory left is from a process that died holding it.
  rmSync(`${file}.lock`, { recursive: true, force: true });
  writeFileSync(pidFile, String(process.pid));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
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
