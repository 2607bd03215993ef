import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { DatabaseConfig } from '../config/config';
import { Recent } from '../cache/recent';
import { MetricsRegistry } from '../metrics/metrics';

export const DATABASE_CONFIG = Symbol('DATABASE_CONFIG');

interface TableRow {
  table: string;
  bytes: number;
  rows: number;
}

/** The gauges, each a value of every table. */
const GAUGES: readonly { name: string; help: string; value: (row: TableRow) => number }[] = [
  {
    name: 'db_table_size_bytes',
    help: "Bytes of each table of the service's schema, its indexes and TOAST included",
    value: (row) => row.bytes,
  },
  {
    name: 'db_table_rows_estimate',
    help: "Rows of each table of the service's schema as the planner estimates them (autovacuum keeps it)",
    value: (row) => row.rows,
  },
];

/** One catalog query serves both gauges of a scrape: results younger than this are reused. */
const FRESH_MS = 1_000;
/** Longest wait of the sizes for one table's lock, and of the whole query (see readTables). */
const LOCK_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 5_000;

/**
 * The size of every table of the service's schema, read from the catalog when Prometheus scrapes:
 * `db_table_size_bytes{table}` (heap, indexes and TOAST: pg_total_relation_size) and `db_table_rows_estimate{table}`
 * (the planner's row estimate, kept by autovacuum and ANALYZE: no table is counted). What an SRE watches to see a
 * table that only grows. A scrape while the database refuses the query keeps the last values (and logs why) rather
 * than failing /metrics, as does a query past its deadline (a second for a table's lock, five seconds in all, so a
 * table locked by a replay's swap or a migration does not hold the scrape); a dropped table leaves the gauges at the
 * next scrape. Without MetricsModule (a CLI) it registers nothing.
 */
@Injectable()
export class DatabaseTableMetrics {
  private readonly logger = new Logger(DatabaseTableMetrics.name);
  private readonly recent = new Recent(FRESH_MS, () => this.readTables());

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(DATABASE_CONFIG) private readonly config: DatabaseConfig,
    @Optional() metrics?: MetricsRegistry,
  ) {
    if (metrics === undefined) return;
    const tables = () => this.tables();
    for (const { name, help, value } of GAUGES) {
      new Gauge({
        name,
        help,
        labelNames: ['table'] as const,
        registers: [metrics.registry],
        async collect() {
          const rows = await tables();
          if (rows === undefined) return;
          this.reset();
          for (const row of rows) this.set({ table: row.table }, value(row));
        },
      });
    }
  }

  /** The schema's tables (a dropped one leaves the gauges); undefined when the database cannot answer (they stay). */
  private tables(): Promise<TableRow[] | undefined> {
    return this.recent.get();
  }

  private readTables(): Promise<TableRow[] | undefined> {
    return this.dataSource
      .transaction(async (manager) => {
        // A table locked by another transaction (a replay's swap, a migration) would hold the scrape: the sizes wait
        // LOCK_TIMEOUT at most for a table's lock, the whole query STATEMENT_TIMEOUT, then the last values stay.
        await manager.query(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
        await manager.query(`SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
        return manager.query<TableRow[]>(
          `SELECT c.relname AS table, pg_total_relation_size(c.oid)::float8 AS bytes,
                  greatest(c.reltuples, 0)::float8 AS rows
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
          [this.config.schema],
        );
      })
      .catch((error: unknown) => {
        this.logger.warn({
          msg: 'Reading table sizes failed',
          err: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      });
  }
}
