import { Command, InvalidArgumentError } from 'commander';
import { DataSource } from 'typeorm';
import { ALL_TOPICS } from '@lx/contracts';
import {
  type DatabaseConfig,
  type DatabaseOptions,
  dataSourceOptions,
  type EventBusConfig,
  migrateSchema,
  pgPoolOf,
  runMain,
  runMigrations,
} from '@lx/platform';
import { eventBusFor } from '../messaging.module';
import { rebuildProjection, type RebuildOptions, type RebuildProgress, type RebuildResult } from './projection-rebuild';

/** The part of a projection service's configuration that a replay needs. */
export interface ProjectionServiceConfig {
  database: Readonly<DatabaseConfig>;
  eventBus: Readonly<EventBusConfig>;
  projection: { groupId: string; batchSize: number; concurrency: number };
}

/** What a service rebuilds: its schema's migrations, the tables of its read model and the projection that fills them. */
export interface ReplayTarget {
  migrations: DatabaseOptions['migrations'];
  tables: RebuildOptions['tables'];
  projectionFor: RebuildOptions['projectionFor'];
  bulk?: RebuildOptions['bulk'];
}

export interface ReplayOptions {
  timeoutMs?: number;
  onProgress?: (progress: RebuildProgress) => void;
}

function dataSourceFor(config: ProjectionServiceConfig, migrations: DatabaseOptions['migrations'], poolSize: number) {
  return new DataSource(dataSourceOptions({ config: { ...config.database, poolSize }, entities: [], migrations }));
}

/**
 * Rebuilds a service's read model from offset 0 into fresh tables and switches the service over to them once they have
 * caught up (see rebuildProjection); the running service keeps answering from the old tables meanwhile.
 */
export async function replayProjection(
  config: ProjectionServiceConfig,
  target: ReplayTarget,
  options: ReplayOptions = {},
): Promise<RebuildResult> {
  const dataSource = dataSourceFor(config, target.migrations, config.projection.concurrency + 3);
  await dataSource.initialize();
  const eventBus = config.eventBus;
  const bus = eventBusFor(
    eventBus.driver === 'kafka'
      ? { ...eventBus, kafka: { ...eventBus.kafka, clientId: `${eventBus.kafka.clientId}-replay` } }
      : eventBus,
    pgPoolOf(dataSource),
  );
  try {
    await migrateSchema(dataSource, config.database.schema);
    await bus.ensureTopics(ALL_TOPICS);
    return await rebuildProjection({
      pool: pgPoolOf(dataSource),
      bus,
      liveGroupId: config.projection.groupId,
      tables: target.tables,
      projectionFor: target.projectionFor,
      bulk: target.bulk,
      batchSize: config.projection.batchSize,
      concurrency: config.projection.concurrency,
      timeoutMs: options.timeoutMs,
      onProgress: options.onProgress,
    });
  } finally {
    await bus.close();
    await dataSource.destroy();
  }
}

/**
 * The SRE command line of a projection service, run with the service's own environment (DATABASE_URL, EVENT_BUS,
 * KAFKA_BROKERS, KAFKA_TOPIC_PREFIX, PROJECTION_GROUP_ID, …): `replay [--timeout-minutes N]` and `migrate`. Output JSON on stdout,
 * progress on stderr.
 */
export function runProjectionCli(cli: {
  service: string;
  /** What the replay rebuilds, for the help text ("the read model"). */
  readModel: string;
  loadConfig: () => ProjectionServiceConfig;
  target: ReplayTarget;
  /** Further commands of the service's own (location-query's `reset-change-feed`). */
  commands?: (program: Command) => void;
}): void {
  const program = new Command(cli.service);
  cli.commands?.(program);
  program
    .command('replay')
    .description(
      `Rebuild ${cli.readModel} from offset 0 into fresh tables and switch to them once caught up; readers are served from the old tables meanwhile`,
    )
    .option('--timeout-minutes <minutes>', 'give up (keeping the current tables) after this long', positive, 24 * 60)
    .action(async (options: { timeoutMinutes: number }) => {
      let lastPercent = -1;
      const result = await replayProjection(cli.loadConfig(), cli.target, {
        timeoutMs: options.timeoutMinutes * 60_000,
        onProgress: ({ phase, applied, target }) => {
          if (phase === 'completing') {
            process.stderr.write(`replay: caught up; completing ${cli.readModel} in one pass before the switch\n`);
            return;
          }
          const percent = target === 0n ? 100 : Number((applied * 100n) / target);
          if (percent !== lastPercent) process.stderr.write(`replay: ${percent}% (${applied} of ${target} messages)\n`);
          lastPercent = percent;
        },
      });
      process.stdout.write(`${JSON.stringify({ replayed: true, ...result })}\n`);
    });

  program
    .command('migrate')
    .description(
      'Apply pending migrations to the service schema (what the service does at boot unless DATABASE_MIGRATE_ON_BOOT=false)',
    )
    .action(async () => {
      const config = cli.loadConfig();
      const result = await runMigrations(dataSourceFor(config, cli.target.migrations, 2), config.database);
      process.stdout.write(`${JSON.stringify(result)}\n`);
    });

  runMain(async () => {
    await program.parseAsync(process.argv);
  });
}

function positive(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('must be a positive number');
  return number;
}
