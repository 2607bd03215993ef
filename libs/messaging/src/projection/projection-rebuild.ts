import { Logger } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { checkOut } from '@lx/platform';
import type { EventBus, PartitionPosition } from '../event-bus';
import { storedPositions } from './consumer-offsets';
import type { Projection } from './projection';
import { ProjectionConsumer } from './projection-consumer';

/** Suffix of the tables a rebuild writes into before they replace the live ones. */
export const REBUILD_SUFFIX = '_rebuild';

export interface RebuildOptions {
  pool: Pool;
  bus: EventBus;
  /** The consumer group of the running service, whose tables are replaced and which continues on the new ones. */
  liveGroupId: string;
  /** Tables of the read model (unqualified, in the pool's search_path), locked in this order at the switch. */
  tables: readonly string[];
  /** The projection writing into the given tables: `tables[name]` is the table to use for `name`. */
  projectionFor: (tables: Readonly<Record<string, string>>) => Projection;
  /** A cheaper first phase, when the read model has one (see RebuildBulkPhase). */
  bulk?: RebuildBulkPhase;
  batchSize: number;
  /** Partitions the rebuild applies at the same time. */
  concurrency?: number;
  /** Gives up (the live tables stay) when the switch has not happened by then; default one day. */
  timeoutMs?: number;
  onProgress?: (progress: RebuildProgress) => void;
}

/**
 * A read model whose derived tables are cheaper to compute at once than to keep event by event (the statistics
 * counters and rollups over the facts): the rebuild applies `projectionFor`'s projection, which writes only part of
 * the tables, until it has caught up; then stops it, runs `complete` in one transaction to derive the rest from what
 * it wrote, and goes on with the full projection (RebuildOptions.projectionFor) up to the switch. The stored offsets
 * are the bulk projection's at the moment it stopped, so the full one continues from the state `complete` saw.
 */
export interface RebuildBulkPhase {
  projectionFor: (tables: Readonly<Record<string, string>>) => Projection;
  complete: (transaction: PoolClient, tables: Readonly<Record<string, string>>) => Promise<void>;
  /**
   * Drop the new tables' indexes that back no constraint before the bulk phase and create them again (the same
   * definitions) in the completing transaction, after `complete`: one sorted build per index instead of an index
   * entry per row written. Only when the bulk projection reads through no such index (constraints such as the primary
   * key stay: the upserts need them).
   */
  deferIndexes?: boolean;
}

export interface RebuildProgress {
  /** The bulk projection applying, its `complete` running (then applied and target do not move), or the full one. */
  phase: 'bulk' | 'completing' | 'full';
  /** Messages the rebuild has read past, over all partitions. */
  applied: bigint;
  /** What it must read at least: the end of the log when it started, or the live position where that is further. */
  target: bigint;
}

export interface RebuildResult {
  groupId: string;
  seconds: number;
  /** Of those, how long the bulk phase's `complete` took (when there was one). */
  completingSeconds?: number;
  /** Where the new tables stood at the switch; the live group continues from there (or from its own, if further). */
  positions: PartitionPosition[];
}

const POLL_MS = 250;
const SWITCH_LOCK_TIMEOUT = '5s';

/**
 * Rebuilds a read model from offset 0 without downtime for readers:
 *  1. creates `<table>_rebuild` for every table (same columns, constraints and indexes: LIKE … INCLUDING ALL);
 *  2. runs the projection into them under a new consumer group, from the start of the log (first the bulk phase's,
 *     completed once caught up, when there is one: RebuildBulkPhase);
 *  3. once the new tables have read at least up to the end of the log as it was at the start and at least as far as
 *     the live group, switches in one transaction: locks the live tables (waiting for the live consumer's transaction
 *     in flight; readers wait a few milliseconds), re-checks the positions, drops the live tables, renames the new
 *     ones and their indexes to the live names, and moves the live group's stored offsets forward to the rebuild's.
 * The live consumer goes on writing into whatever table carries the live name; the events it sees again after the
 * switch are no-ops by aggregate version. While the rebuild runs, readers and the live consumer use the old tables.
 * One rebuild per read model at a time (advisory lock); a failed or abandoned rebuild leaves the live tables as they
 * are and is cleaned up by the next.
 */
export async function rebuildProjection(options: RebuildOptions): Promise<RebuildResult> {
  const logger = new Logger(`Rebuild:${options.liveGroupId}`);
  const started = Date.now();
  const groupId = `${options.liveGroupId}.rebuild-${started.toString(36)}`;
  const shadow = Object.fromEntries(options.tables.map((table) => [table, `${table}${REBUILD_SUFFIX}`]));
  const lock = await checkOut(options.pool);
  let consumer: ProjectionConsumer | undefined;
  try {
    await acquireRebuildLock(lock.client, options.liveGroupId);
    await prepareTables(options.pool, options.tables, options.liveGroupId);
    let bulk = options.bulk;
    let completingSeconds: number | undefined;
    const deferred = bulk?.deferIndexes ? await dropIndexes(options.pool, Object.values(shadow)) : [];
    const first = (bulk ?? options).projectionFor(shadow);
    // Every topic either projection reads: the switch waits for the full one's too.
    const topics = [...new Set([...first.topics, ...options.projectionFor(shadow).topics])];
    const floor = await logEnd(options.bus, topics);
    const consumerFor = (projection: Projection) =>
      new ProjectionConsumer(options.pool, options.bus, projection, {
        groupId,
        batchSize: options.batchSize,
        concurrency: options.concurrency,
        deadLetterGroupId: options.liveGroupId,
      });
    consumer = consumerFor(first);
    await consumer.start();
    logger.log({ groupId, tables: Object.values(shadow), bulk: bulk !== undefined }, 'Rebuilding from offset 0');

    const deadline = started + (options.timeoutMs ?? 86_400_000);
    let lastLog = 0;
    for (;;) {
      const health = consumer.health();
      if (health.state === 'failing') logger.warn({ failure: health.failure }, 'Rebuild consumer is failing; retrying');
      const [rebuilt, live] = await Promise.all([
        storedPositions(options.pool, groupId),
        storedPositions(options.pool, options.liveGroupId),
      ]);
      const progress = progressOf(rebuilt, targetsOf(floor, live));
      options.onProgress?.({ phase: bulk === undefined ? 'full' : 'bulk', ...progress });
      if (Date.now() - lastLog > 5_000) {
        lastLog = Date.now();
        logger.log({ applied: String(progress.applied), target: String(progress.target) }, 'Rebuild progress');
      }
      if (progress.applied >= progress.target && bulk !== undefined) {
        await consumer.stop();
        options.onProgress?.({ phase: 'completing', ...progress });
        const completing = Date.now();
        await completeBulk(options.pool, bulk, shadow, groupId, deferred);
        completingSeconds = (Date.now() - completing) / 1000;
        logger.log({ seconds: completingSeconds }, 'Bulk phase completed; the full projection goes on');
        bulk = undefined;
        consumer = consumerFor(options.projectionFor(shadow));
        await consumer.start();
      } else if (progress.applied >= progress.target) {
        const positions = await trySwitch(options, shadow, groupId, floor);
        if (positions) {
          await consumer.stop();
          await options.pool.query(`DELETE FROM consumer_offsets WHERE group_id = $1`, [groupId]);
          await options.bus.deleteGroups([groupId]);
          const seconds = (Date.now() - started) / 1000;
          logger.log({ seconds, positions: positions.length }, 'Switched to the rebuilt tables');
          return { groupId, seconds, ...(completingSeconds === undefined ? {} : { completingSeconds }), positions };
        }
      }
      if (Date.now() > deadline) throw new Error(`the rebuild did not catch up within ${options.timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } catch (error) {
    await consumer?.stop().catch(() => undefined);
    await cleanUp(options.pool, options.tables, groupId).catch(() => undefined);
    await options.bus.deleteGroups([groupId]).catch(() => undefined);
    throw error;
  } finally {
    await lock.client
      .query(`SELECT pg_advisory_unlock(hashtext($1))`, [`rebuild:${options.liveGroupId}`])
      .catch(() => undefined);
    lock.release();
  }
}

async function completeBulk(
  pool: Pool,
  bulk: RebuildBulkPhase,
  shadow: Readonly<Record<string, string>>,
  groupId: string,
  deferredIndexes: readonly string[],
): Promise<void> {
  const { client, release } = await checkOut(pool);
  try {
    await client.query('BEGIN');
    // The stopped consumer has finished its last batch; taking its offset rows (which each batch's transaction holds
    // until it commits) makes sure of it before `complete` reads what the bulk projection wrote.
    await client.query(`SELECT 1 FROM consumer_offsets WHERE group_id = $1 FOR UPDATE`, [groupId]);
    await bulk.complete(client, shadow);
    for (const definition of deferredIndexes) await client.query(definition);
    // Planner statistics for the filled tables before they go live (autovacuum would come to them later).
    await client.query(`ANALYZE ${Object.values(shadow).map(quoteIdentifier).join(', ')}`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    release();
  }
}

/** Drops the indexes of `tables` that back no constraint; returns their definitions (CREATE INDEX statements). */
async function dropIndexes(pool: Pool, tables: readonly string[]): Promise<string[]> {
  const { rows } = await pool.query<{ name: string; definition: string }>(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = current_schema() AND t.relname = ANY($1)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
      ORDER BY 1`,
    [tables],
  );
  for (const { name } of rows) await pool.query(`DROP INDEX ${name}`);
  return rows.map((row) => row.definition);
}

async function acquireRebuildLock(client: PoolClient, liveGroupId: string): Promise<void> {
  const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1)) AS locked`, [
    `rebuild:${liveGroupId}`,
  ]);
  if (!rows[0]?.locked) throw new Error(`a rebuild of ${liveGroupId} is already running`);
}

/** Fresh shadow tables, and no offsets of earlier, abandoned rebuilds. */
async function prepareTables(pool: Pool, tables: readonly string[], liveGroupId: string): Promise<void> {
  for (const table of tables) {
    await pool.query(`DROP TABLE IF EXISTS ${quoteIdentifier(table + REBUILD_SUFFIX)}`);
    await pool.query(
      `CREATE TABLE ${quoteIdentifier(table + REBUILD_SUFFIX)} (LIKE ${quoteIdentifier(table)} INCLUDING ALL)`,
    );
  }
  await pool.query(`DELETE FROM consumer_offsets WHERE group_id LIKE $1`, [`${liveGroupId}.rebuild-%`]);
}

async function cleanUp(pool: Pool, tables: readonly string[], groupId: string): Promise<void> {
  for (const table of tables) await pool.query(`DROP TABLE IF EXISTS ${quoteIdentifier(table + REBUILD_SUFFIX)}`);
  await pool.query(`DELETE FROM consumer_offsets WHERE group_id = $1`, [groupId]);
}

async function logEnd(bus: EventBus, topics: readonly string[]): Promise<PartitionPosition[]> {
  const bounds = await Promise.all(topics.map((topic) => bus.partitionBounds(topic)));
  return bounds.flat().map(({ topic, partition, high }) => ({ topic, partition, offset: high }));
}

const keyOf = (position: { topic: string; partition: number }) => `${position.topic}/${position.partition}`;

/** Per partition, the offset the rebuild must reach: the larger of the log end at the start and the live position. */
function targetsOf(floor: readonly PartitionPosition[], live: readonly PartitionPosition[]): Map<string, bigint> {
  const targets = new Map<string, bigint>();
  for (const position of [...floor, ...live]) {
    const key = keyOf(position);
    const offset = BigInt(position.offset);
    if ((targets.get(key) ?? -1n) < offset) targets.set(key, offset);
  }
  return targets;
}

function progressOf(
  rebuilt: readonly PartitionPosition[],
  targets: ReadonlyMap<string, bigint>,
): Omit<RebuildProgress, 'phase'> {
  const reached = new Map(rebuilt.map((position) => [keyOf(position), BigInt(position.offset)]));
  let applied = 0n;
  let target = 0n;
  for (const [key, offset] of targets) {
    target += offset;
    const at = reached.get(key) ?? 0n;
    applied += at < offset ? at : offset;
  }
  return { applied, target };
}

/** The switch; undefined (nothing changed) when the live group got ahead again before the locks were taken. */
async function trySwitch(
  options: RebuildOptions,
  shadow: Readonly<Record<string, string>>,
  groupId: string,
  floor: readonly PartitionPosition[],
): Promise<PartitionPosition[] | undefined> {
  const { client, release } = await checkOut(options.pool);
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = '${SWITCH_LOCK_TIMEOUT}'`);
    // In the consumers' own order: a consumer transaction locks its partition's offset row first, then the tables.
    // Holding the offset rows, then the tables, freezes both groups without a lock cycle.
    await client.query(`SELECT 1 FROM consumer_offsets WHERE group_id = ANY($1) FOR UPDATE`, [
      [options.liveGroupId, groupId],
    ]);
    await client.query(`LOCK TABLE ${options.tables.map(quoteIdentifier).join(', ')} IN ACCESS EXCLUSIVE MODE`);
    const rebuilt = await storedPositions(client, groupId);
    const live = await storedPositions(client, options.liveGroupId);
    const progress = progressOf(rebuilt, targetsOf(floor, live));
    if (progress.applied < progress.target) {
      await client.query('ROLLBACK');
      return undefined;
    }
    for (const table of options.tables) await replaceTable(client, table, shadow[table]!);
    await client.query(
      `INSERT INTO consumer_offsets (group_id, topic, partition, next_offset)
       SELECT $1, topic, partition, next_offset FROM consumer_offsets WHERE group_id = $2
       ON CONFLICT (group_id, topic, partition) DO UPDATE
         SET next_offset = GREATEST(consumer_offsets.next_offset, EXCLUDED.next_offset), updated_at = clock_timestamp()`,
      [options.liveGroupId, groupId],
    );
    await client.query(`DELETE FROM consumer_offsets WHERE group_id = $1`, [groupId]);
    await client.query('COMMIT');
    return rebuilt;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    // Lock timeout (readers or a consumer held the tables too long) or a deadlock: try again on the next round.
    const code = (error as { code?: unknown }).code;
    if (code === '55P03' || code === '40P01') return undefined;
    throw error;
  } finally {
    release();
  }
}

/** Drops `live` and gives `rebuilt` its name and the names of its indexes (matched by definition). */
async function replaceTable(client: PoolClient, live: string, rebuilt: string): Promise<void> {
  const liveIndexes = await indexesOf(client, live);
  const rebuiltIndexes = await indexesOf(client, rebuilt);
  const renames: [string, string][] = [];
  for (const index of rebuiltIndexes) {
    const match = liveIndexes.findIndex((candidate) => candidate.shape === index.shape);
    if (match < 0) continue;
    renames.push([index.name, liveIndexes[match]!.name]);
    liveIndexes.splice(match, 1);
  }
  await client.query(`DROP TABLE ${quoteIdentifier(live)}`);
  await client.query(`ALTER TABLE ${quoteIdentifier(rebuilt)} RENAME TO ${quoteIdentifier(live)}`);
  // Renaming an index that backs a constraint (the primary key) renames the constraint too.
  for (const [from, to] of renames)
    await client.query(`ALTER INDEX ${quoteIdentifier(from)} RENAME TO ${quoteIdentifier(to)}`);
}

async function indexesOf(client: PoolClient, table: string): Promise<{ name: string; shape: string }[]> {
  const { rows } = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 ORDER BY indexname`,
    [table],
  );
  // "CREATE [UNIQUE] INDEX name ON schema.table USING …": what is left without name and table is the index itself.
  return rows.map((row) => ({
    name: row.indexname,
    shape: row.indexdef.replace(/^(CREATE (?:UNIQUE )?INDEX) \S+ ON \S+ /, '$1 '),
  }));
}

/** A Postgres identifier quoted for SQL text (table names a rebuild or a projection is given). */
export function quoteIdentifier(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
