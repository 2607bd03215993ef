import { type DynamicModule, Global, Inject, Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { getDataSourceToken, InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/config';
import type { ReadinessCheck } from '../health/health';
import { pgPoolOf } from './pg-pool';
import { provisionSchemaOwner } from './schema-owner';
import { tlsOptionsOf } from './tls';
import { SnakeNamingStrategy } from './snake-naming.strategy';
import { DATABASE_CONFIG, DatabaseTableMetrics } from './table-metrics';

export interface DatabaseOptions {
  config: Readonly<DatabaseConfig>;
  entities: NonNullable<DataSourceOptions['entities']>;
  migrations: NonNullable<DataSourceOptions['migrations']>;
}

/** TypeORM options for a service's own schema; also used by the migration CLI's data-source files. */
export function dataSourceOptions({ config, entities, migrations }: DatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.url,
    schema: config.schema,
    entities,
    migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    namingStrategy: new SnakeNamingStrategy(),
    // Unqualified names in migrations and raw SQL resolve to the service's own schema.
    extra: { max: config.poolSize, connectionTimeoutMillis: 3_000, options: `-c search_path=${config.schema}` },
    ...(config.ssl !== undefined && { ssl: tlsOptionsOf(config.ssl) }),
  };
}

/**
 * Creates the schema and applies pending migrations under a Postgres advisory lock keyed by the
 * schema name, so replicas booting together migrate once. Safe to run on every boot.
 */
export async function migrateSchema(dataSource: DataSource, schema: string): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrations:${schema}`]);
    // CREATE SCHEMA IF NOT EXISTS checks the CREATE privilege on the database before it looks for the schema, and a
    // service's own role has none (its schema is provisioned for it): create only what is missing.
    const existing = (await runner.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])) as unknown[];
    if (existing.length === 0) await runner.query(`CREATE SCHEMA "${schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${schema}`]).catch(() => undefined);
    await runner.release();
  }
}

/**
 * The `migrate` entry of a service (and of its CLI): with an administrator's login in the configuration
 * (DATABASE_ADMIN_URL), first makes the service's own login the owner of its schema (see provisionSchemaOwner); then
 * connects the given data source if it is not connected yet, migrates the schema it is configured for (see
 * migrateSchema) as that login and closes it. Returns the schema and the names of the migrations applied, in order
 * (none when it was up to date).
 */
export async function runMigrations(
  dataSource: DataSource,
  config?: Readonly<DatabaseConfig>,
): Promise<{ schema: string; applied: string[] }> {
  const schema = 'schema' in dataSource.options ? dataSource.options.schema : undefined;
  if (!schema) throw new Error('runMigrations: the data source has no schema configured');
  if (config?.adminUrl !== undefined) await provisionSchemaOwner({ ...config, adminUrl: config.adminUrl });
  if (!dataSource.isInitialized) await dataSource.initialize();
  try {
    return { schema, applied: await migrateSchema(dataSource, schema) };
  } finally {
    await dataSource.destroy();
  }
}

/** Injection token of the node-postgres pool behind the service's data source (see pgPoolOf). */
export const PG_POOL = Symbol('PG_POOL');

@Injectable()
export class DatabaseReadinessCheck implements ReadinessCheck {
  readonly name = 'database';
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async check(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}

@Injectable()
class MigrateOnBoot implements OnModuleInit {
  private readonly logger = new Logger('Migrations');
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(DATABASE_CONFIG) private readonly config: DatabaseConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.migrateOnBoot) return;
    const applied = await migrateSchema(this.dataSource, this.config.schema);
    this.logger.log({ schema: this.config.schema, applied }, 'Schema migrated');
  }
}

/**
 * The service's TypeORM data source on its own schema, its node-postgres pool (PG_POOL), migrations at boot (unless
 * disabled), readiness check, and its tables' sizes as metrics (DatabaseTableMetrics).
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      // forRootAsync without a name: @nestjs/typeorm registers the names of forRoot's data sources process-wide and
      // warns at the second default one, which is right within one application but not across the applications of
      // one process (the embedded profile, tests), where each has its own container and its own data source.
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({ ...dataSourceOptions(options), retryAttempts: 3, retryDelay: 1_000 }),
        }),
      ],
      providers: [
        { provide: DATABASE_CONFIG, useValue: options.config },
        {
          provide: PG_POOL,
          useFactory: (dataSource: DataSource) => pgPoolOf(dataSource),
          inject: [getDataSourceToken()],
        },
        DatabaseReadinessCheck,
        MigrateOnBoot,
        DatabaseTableMetrics,
      ],
      exports: [PG_POOL, DatabaseReadinessCheck],
    };
  }
}
