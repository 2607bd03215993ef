import { type BeforeApplicationShutdown, type DynamicModule, Global, Inject, Injectable, Module } from '@nestjs/common';
import { DatabaseError, Pool, type PoolClient, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg';
import { Counter, Gauge } from 'prom-client';
import { PAGINATION } from '@lx/contracts';
import { DomainError, type Listed, type Page } from '@lx/domain';
import type { DatabaseConfig, ReadPoolConfig } from '../config/config';
import { DATABASE_CONNECT_TIMEOUTS } from '../errors/error-response';
import { MetricsRegistry } from '../metrics/metrics';
import { checkOut } from './pg-pool';
import { tlsOptionsOf } from './tls';

/** Postgres's SQLSTATE for a statement cancelled, as statement_timeout does. */
const QUERY_CANCELED = '57014';
/** Seconds a refused read is told to wait before it tries again. */
const RETRY_AFTER_SECONDS = 1;

/**
 * A read refused for want of capacity (503 SERVICE_UNAVAILABLE with Retry-After): it ran past the statement timeout,
 * or waited past READ_QUEUE_TIMEOUT_MS for a connection or a scan slot. Nothing was changed; the caller retries.
 */
export class ReadCapacityError extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';

  private constructor(message: string, details: Record<string, unknown>) {
    super(message, details, { 'retry-after': String(RETRY_AFTER_SECONDS) });
  }

  static statementTimeout(timeoutMs: number): ReadCapacityError {
    return new ReadCapacityError(`the query ran longer than ${timeoutMs} ms and was cancelled; retry later`, {
      reason: 'statementTimeout',
      timeoutMs,
    });
  }

  static busy(waitedMs: number): ReadCapacityError {
    return new ReadCapacityError(`the service is busy: no capacity for the read within ${waitedMs} ms; retry later`, {
      reason: 'busy',
      waitedMs,
    });
  }
}

/** Admits at most `slots` callers at a time; one that waited longer than `timeoutMs` for a slot gets `undefined`. */
export class Bulkhead {
  private readonly waiting: (() => void)[] = [];
  private inUse = 0;

  constructor(
    private readonly slots: number,
    private readonly timeoutMs: number,
  ) {}

  get queued(): number {
    return this.waiting.length;
  }

  get running(): number {
    return this.inUse;
  }

  /** Resolves true once a slot is held (the caller must `release` it), false after timeoutMs without one. */
  async acquire(): Promise<boolean> {
    if (this.inUse < this.slots) {
      this.inUse += 1;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const admit = () => {
        clearTimeout(timer);
        this.inUse += 1;
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(admit), 1);
        resolve(false);
      }, this.timeoutMs);
      this.waiting.push(admit);
    });
  }

  release(): void {
    this.inUse -= 1;
    this.waiting.shift()?.();
  }
}

/** What ReadPool counts (see the metrics' help). */
class ReadPoolMetrics {
  readonly refused: Counter<'reason'>;
  readonly scans: Gauge<'state'>;
  constructor(metrics: MetricsRegistry) {
    this.refused = new Counter({
      name: 'db_read_refused_total',
      help: 'RSP reads answered 503: cancelled at the statement timeout, or no connection or scan slot in time (busy)',
      labelNames: ['reason'] as const,
      registers: [metrics.registry],
    });
    this.scans = new Gauge({
      name: 'db_read_scans',
      help: 'List reads (scans) running and waiting for one of the READ_SCAN_CONCURRENCY slots',
      labelNames: ['state'] as const,
      registers: [metrics.registry],
    });
  }
}

/** The database a ReadPool connects to (the service's own, on its schema) and the pool's settings. */
export interface ReadPoolOptions {
  database: Pick<DatabaseConfig, 'url' | 'schema' | 'ssl'>;
  read: ReadPoolConfig;
}

const READ_POOL_CONFIG = Symbol('READ_POOL_CONFIG');

/** A list read by ReadPool.page: see there. */
export interface PageRead {
  columns: string;
  table: string;
  conditions: readonly string[];
  values: readonly unknown[];
  page: Page;
  order?: string;
}

function whereOf(conditions: readonly string[]): string {
  return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
}

/** The statement of a page (one row beyond it) and its values. */
export function pageSql(list: PageRead): { sql: string; values: unknown[] } {
  const values = [...list.values];
  const conditions = [...list.conditions];
  if (list.page.after !== undefined) {
    values.push(list.page.after);
    conditions.push(`id > $${values.length}`);
  }
  values.push(list.page.limit + 1, list.page.offset);
  return {
    sql: `SELECT ${list.columns} FROM ${list.table}${whereOf(conditions)} ORDER BY ${list.order ?? 'id'}
           LIMIT $${values.length - 1} OFFSET $${values.length}`,
    values,
  };
}

/** A statement as node-postgres takes it: text, or a config (named, with values). */
type Statement = string | QueryConfig;

/**
 * The statements of one scan (ReadPool.scan): on one connection, and together within one statement timeout: each
 * statement after the first runs under what is left of READ_STATEMENT_TIMEOUT_MS since the first began.
 */
export interface ScanSession {
  query<R extends QueryResultRow>(query: Statement, values?: unknown[]): Promise<QueryResult<R>>;
}

/**
 * The connections of RSP-facing reads, apart from the service's own pool (projections, the internal snapshot, the
 * rate-limit counts): a flood of reads cannot take the connections a projection needs, nor the other way round. Every
 * statement runs under `statement_timeout` (READ_STATEMENT_TIMEOUT_MS, set on each connection); reads that scan a
 * page of rows (`scan`) run at most READ_SCAN_CONCURRENCY at a time, so the other connections stay free for reads by
 * id, and all statements of one scan share one deadline. A read cancelled at the timeout, or that finds no connection
 * or slot within READ_QUEUE_TIMEOUT_MS, is ReadCapacityError (503 with Retry-After), never a hung request; its
 * connection goes back to the pool (a cancelled statement leaves it usable).
 */
@Injectable()
export class ReadPool implements BeforeApplicationShutdown {
  private readonly pool: Pool;
  private readonly scans: Bulkhead;
  private readonly metrics: ReadPoolMetrics;
  private ended?: Promise<void>;

  constructor(
    @Inject(READ_POOL_CONFIG) private readonly config: ReadPoolOptions,
    metrics: MetricsRegistry,
  ) {
    const { database, read } = config;
    this.metrics = new ReadPoolMetrics(metrics);
    this.pool = new Pool({
      connectionString: database.url,
      max: read.poolSize,
      connectionTimeoutMillis: read.queueTimeoutMs,
      options: `-c search_path=${database.schema} -c statement_timeout=${read.statementTimeoutMs}`,
      ...(database.ssl !== undefined && { ssl: tlsOptionsOf(database.ssl) }),
    });
    // An idle connection the server drops is removed by the pool; without a listener it would crash the process.
    this.pool.on('error', () => undefined);
    this.scans = new Bulkhead(read.scanConcurrency, read.queueTimeoutMs);
  }

  /** One statement on a pooled connection (a read by id: no scan slot). */
  async query<R extends QueryResultRow>(query: Statement, values?: unknown[]): Promise<QueryResult<R>> {
    return this.onConnection((client) => client.query<R>(query, values));
  }

  /**
   * One page of a list, read in a scan slot: the rows of `table` that match every condition (placeholders $1… bound
   * to `values`), in id order after `page.after` (or in `order` when given, which must not come with `after`), from
   * `page.offset`, one row beyond the page to know whether another follows: in id order, `next` is then the page's
   * last id. With the total of the matching rows (see totalOf).
   */
  async page<R extends { id: string }>(list: PageRead): Promise<{ rows: R[] } & Listed> {
    const { sql, values } = pageSql(list);
    return this.scan(async (session) => {
      const { rows } = await session.query<R>(sql, values);
      const shown = rows.slice(0, list.page.limit);
      const last = shown[shown.length - 1];
      const more = rows.length > list.page.limit && list.order === undefined && last !== undefined;
      return { rows: shown, ...(await totalOf(session, list)), ...(more && { next: last.id }) };
    });
  }

  /**
   * The page of `page`, but `columns` is one text expression and the page comes back as those texts joined by commas
   * in one row, built by Postgres: a thousand rows cost this process one string instead of a thousand row objects
   * (what a read by id would wait behind). In id order only.
   */
  async joinedPage(list: Omit<PageRead, 'order'>): Promise<{ joined: string } & Listed> {
    const { sql, values } = pageSql({ ...list, columns: `id, ${list.columns} AS item` });
    values.push(list.page.limit);
    const limit = `$${values.length}`;
    return this.scan(async (session) => {
      const { rows } = await session.query<{ rows: number; joined: string | null; last: string | null }>(
        `SELECT count(*)::int AS rows, string_agg(item, ',' ORDER BY id) FILTER (WHERE position <= ${limit}) AS joined,
                min(id::text) FILTER (WHERE position = ${limit}) AS last
           FROM (SELECT id, item, row_number() OVER (ORDER BY id) AS position FROM (${sql}) AS limited) AS page`,
        values,
      );
      const row = rows[0]!;
      const more = row.rows > list.page.limit && row.last !== null;
      return { joined: row.joined ?? '', ...(await totalOf(session, list)), ...(more && { next: row.last! }) };
    });
  }

  /**
   * Runs a read of rows in one of the scan slots (see the class) and on one connection: `session`'s statements share
   * one deadline, READ_STATEMENT_TIMEOUT_MS from the first. With `snapshot`, they also share one snapshot (a
   * repeatable-read transaction); without, the second statement opens a read-only transaction, for the deadline.
   */
  async scan<T>(read: (session: ScanSession) => Promise<T>, options: { snapshot?: boolean } = {}): Promise<T> {
    this.metrics.scans.set({ state: 'waiting' }, this.scans.queued + 1);
    const admitted = await this.scans.acquire();
    this.metrics.scans.set({ state: 'waiting' }, this.scans.queued);
    if (!admitted) {
      this.metrics.refused.inc({ reason: 'busy' });
      throw ReadCapacityError.busy(this.config.read.queueTimeoutMs);
    }
    this.metrics.scans.set({ state: 'running' }, this.scans.running);
    try {
      return await this.onConnection(async (client, connection) => {
        // Flagged before it is sent: a transaction begun by a statement that then failed is still rolled back.
        if (options.snapshot === true) {
          connection.inTransaction = true;
          await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        }
        const result = await read(this.sessionOn(client, connection));
        if (connection.inTransaction) await client.query('COMMIT');
        return result;
      });
    } finally {
      this.scans.release();
      this.metrics.scans.set({ state: 'running' }, this.scans.running);
    }
  }

  /** Closes the pool once, however often the application is closed. */
  async beforeApplicationShutdown(): Promise<void> {
    this.ended ??= this.pool.end();
    await this.ended;
  }

  /**
   * The session of one scan on `client`: its statements run one after another (a call made before the previous one
   * settled waits for it), the first under the connection's statement_timeout, each later one under what is left of
   * it inside a read-only transaction opened by the second (`SET LOCAL` ends with it). After a failed statement the
   * session answers every further one with that failure: the transaction is aborted, and the first cause is the one
   * to report.
   */
  private sessionOn(client: PoolClient, connection: { inTransaction: boolean }): ScanSession {
    let deadline: number | undefined;
    let failure: Error | undefined;
    let previous: Promise<unknown> = Promise.resolve();
    const run = async <R extends QueryResultRow>(query: Statement, values?: unknown[]) => {
      if (failure !== undefined) throw failure;
      try {
        if (deadline === undefined) {
          deadline = Date.now() + this.config.read.statementTimeoutMs;
        } else {
          const left = deadline - Date.now();
          if (left < 1) throw this.statementTimeout();
          const begin = connection.inTransaction ? '' : 'BEGIN READ ONLY; ';
          connection.inTransaction = true;
          await client.query(`${begin}SET LOCAL statement_timeout = ${left}`);
        }
        return await client.query<R>(query, values);
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
        throw error;
      }
    };
    return {
      query: <R extends QueryResultRow>(query: Statement, values?: unknown[]) => {
        const result = previous.then(() => run<R>(query, values));
        previous = result.catch(() => undefined);
        return result;
      },
    };
  }

  /**
   * Runs `use` with a connection of the pool. When `use` fails the connection goes back to the pool if it is sound: a
   * transaction `use` opened (flagged in `connection`) is rolled back first; outside one, an error Postgres answered
   * (a cancelled statement) or one of ours leaves it as it was. A connection that failed otherwise (lost, broken), or
   * whose rollback failed, is destroyed. So a flood of statements cancelled at the timeout does not cost a
   * reconnection each.
   */
  private async onConnection<T>(
    use: (client: PoolClient, connection: { inTransaction: boolean }) => Promise<T>,
  ): Promise<T> {
    let held: Awaited<ReturnType<typeof checkOut>>;
    try {
      held = await checkOut(this.pool);
    } catch (error) {
      throw this.refusal(error);
    }
    const connection = { inTransaction: false };
    try {
      const result = await use(held.client, connection);
      held.release();
      return result;
    } catch (error) {
      if (connection.inTransaction) {
        await held.client.query('ROLLBACK').then(
          () => held.release(),
          (broken: unknown) => held.release(broken instanceof Error ? broken : new Error(String(broken))),
        );
      } else if (error instanceof DatabaseError || error instanceof DomainError) {
        held.release();
      } else {
        held.release(error instanceof Error ? error : new Error(String(error)));
      }
      throw this.refusal(error);
    }
  }

  private statementTimeout(): ReadCapacityError {
    this.metrics.refused.inc({ reason: 'statementTimeout' });
    return ReadCapacityError.statementTimeout(this.config.read.statementTimeoutMs);
  }

  /** The typed error for a statement cancelled at the timeout or a connection not had in time; others unchanged. */
  private refusal(error: unknown): unknown {
    if (error instanceof DomainError) return error;
    if ((error as { code?: unknown } | undefined)?.code === QUERY_CANCELED) return this.statementTimeout();
    // node-postgres's pool rejects a wait past connectionTimeoutMillis with one of these messages (its only signal):
    // no connection was free in time, or a new one was not established in time.
    if (error instanceof Error && DATABASE_CONNECT_TIMEOUTS.has(error.message)) {
      this.metrics.refused.inc({ reason: 'busy' });
      return ReadCapacityError.busy(this.config.read.queueTimeoutMs);
    }
    return error;
  }
}

/**
 * How many rows of `list` match (its table and conditions, placeholders bound to its values): counted exactly up to
 * PAGINATION.exactTotalUpTo, past that the planner's estimate (never below the count), flagged `totalEstimated`; so a
 * list's total never reads more than that many rows.
 */
async function totalOf(session: ScanSession, list: PageRead): Promise<Omit<Listed, 'next'>> {
  const from = `${list.table}${whereOf(list.conditions)}`;
  const values = [...list.values];
  const limit = PAGINATION.exactTotalUpTo + 1;
  const { rows } = await session.query<{ total: string }>(
    `SELECT count(*) AS total FROM (SELECT 1 FROM ${from} LIMIT ${limit}) AS capped`,
    values,
  );
  const counted = Number(rows[0]?.total ?? 0);
  if (counted < limit) return { total: counted, totalEstimated: false };
  const plan = await session.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${from}`,
    values,
  );
  const estimate = Math.round(plan.rows[0]?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0);
  return { total: Math.max(counted, estimate), totalEstimated: true };
}

/** ReadPool for a service's RSP-facing reads, on the service's database and schema (see ReadPool). */
@Global()
@Module({})
export class ReadPoolModule {
  static forRoot(database: DatabaseConfig, read: ReadPoolConfig): DynamicModule {
    return {
      module: ReadPoolModule,
      providers: [{ provide: READ_POOL_CONFIG, useValue: { database, read } }, ReadPool],
      exports: [ReadPool],
    };
  }
}
