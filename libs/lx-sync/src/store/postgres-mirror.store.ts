import { Pool, type PoolClient } from 'pg';
import type { DigestEntry, DigestNode } from '@lx/contracts';
import type { MirrorResource } from '../api/lx-api.client';
import { digestColumnsOf } from '../digest/mirror-digest';
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
  id: 'uuid',
  boolean: 'boolean',
  falseValue: 'false',
  bucket: 'text COLLATE "C"',
  body: 'jsonb',
  time: 'timestamptz',
  digestIndex: (table) =>
    `CREATE INDEX IF NOT EXISTS ${table}_digest ON ${table} (bucket) INCLUDE (hash, id, version) WHERE NOT deleted`,
});

/**
 * The mirror in PostgreSQL: the bodies as jsonb, so an RSP's applications can query them; digests are folded in SQL
 * (bit_xor of the entry hashes), so a mirror of millions of rows never travels to lx-sync. A partial index of the live
 * rows by bucket (with hash, id and version) serves a node's range and its entries.
 */
export class PostgresMirrorStore implements MirrorStore {
  readonly kind = 'postgres';
  private readonly pool: Pool;

  constructor(url: string) {
    this.pool = new Pool({ connectionString: url, max: 4 });
    // An idle connection that breaks is dropped by the pool; without a listener it would end the process.
    this.pool.on('error', () => undefined);
  }

  async migrate(): Promise<void> {
    await this.query(SCHEMA);
  }

  async transaction<T>(work: (transaction: MirrorTransaction) => Promise<T>): Promise<T> {
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      const result = await work(this.writer(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async state(key: string): Promise<string | undefined> {
    const rows = await this.query<{ value: string }>('SELECT value FROM lx_sync_state WHERE key = $1', [key]);
    return rows[0]?.value;
  }

  async row(resource: MirrorResource, id: string): Promise<MirrorRow | undefined> {
    const rows = await this.query<MirrorRow>(
      `SELECT id::text, version, deleted, body::text AS body FROM ${MIRROR_TABLES[resource]} WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  async digestChildren(resource: MirrorResource, prefix: string, depth: number): Promise<DigestNode[]> {
    const { where, values } = bucketCondition(prefix, (n) => `$${n}`);
    const rows = await this.query<{ prefix: string; count: string; hash: string }>(
      `SELECT substr(bucket, 1, ${prefix.length + depth}) AS prefix, count(*) AS count,
              bit_xor(('x' || hash)::bit(64)::bigint)::text AS hash
         FROM ${MIRROR_TABLES[resource]} WHERE NOT deleted${where} GROUP BY 1 ORDER BY 1`,
      values,
    );
    return rows.map((row) => ({
      prefix: row.prefix,
      count: Number(row.count),
      hash: BigInt.asUintN(64, BigInt(row.hash)).toString(16).padStart(16, '0'),
    }));
  }

  async entries(resource: MirrorResource, prefix: string): Promise<DigestEntry[]> {
    const { where, values } = bucketCondition(prefix, (n) => `$${n}`);
    return this.query<DigestEntry>(
      `SELECT id::text, version FROM ${MIRROR_TABLES[resource]} WHERE NOT deleted${where} ORDER BY id::text`,
      values,
    );
  }

  async count(resource: MirrorResource): Promise<number> {
    const rows = await this.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${MIRROR_TABLES[resource]} WHERE NOT deleted`,
    );
    return Number(rows[0]!.n);
  }

  async forgetDeliveries(before: Date): Promise<number> {
    const client = await this.connect();
    try {
      return (await client.query('DELETE FROM lx_sync_deliveries WHERE received_at < $1', [before])).rowCount ?? 0;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private writer(client: PoolClient): MirrorTransaction {
    const count = async (sql: string, values: unknown[]) => ((await client.query(sql, values)).rowCount ?? 0) > 0;
    const upsert = (resource: MirrorResource, row: MirrorRow, condition: string, ...values: unknown[]) => {
      const { bucket, hash } = digestColumnsOf(row.id, row.version);
      return count(
        `INSERT INTO ${MIRROR_TABLES[resource]} AS t (id, version, deleted, bucket, hash, body)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO ${
           condition === 'nothing'
             ? 'NOTHING'
             : `UPDATE SET version = excluded.version, deleted = excluded.deleted, hash = excluded.hash,
                body = excluded.body ${condition}`
         }`,
        [row.id, row.version, row.deleted, bucket, hash, row.body, ...values],
      );
    };
    return {
      apply: (resource, row) => upsert(resource, row, 'WHERE excluded.version > t.version'),
      replace: (resource, row, held) =>
        held === undefined ? upsert(resource, row, 'nothing') : upsert(resource, row, 'WHERE t.version = $7', held),
      removeIf: (resource, id, held) =>
        count(`DELETE FROM ${MIRROR_TABLES[resource]} WHERE id = $1 AND version = $2`, [id, held]),
      setState: async (key, value) =>
        void (await client.query(
          'INSERT INTO lx_sync_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          [key, value],
        )),
      deleteState: async (key) => void (await client.query('DELETE FROM lx_sync_state WHERE key = $1', [key])),
      claimDelivery: async (webhookId) =>
        ((
          await client.query(
            'INSERT INTO lx_sync_deliveries (webhook_id, received_at) VALUES ($1, now()) ON CONFLICT DO NOTHING',
            [webhookId],
          )
        ).rowCount ?? 0) > 0,
    };
  }

  private async connect(): Promise<PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw new LxSyncError('DATABASE_ERROR', `cannot connect to the mirror's PostgreSQL: ${(error as Error).message}`);
    }
  }

  private async query<T>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = await this.connect();
    try {
      return (await client.query(text, values)).rows as T[];
    } finally {
      client.release();
    }
  }
}
