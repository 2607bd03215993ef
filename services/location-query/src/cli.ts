import 'reflect-metadata';
import { Command, InvalidArgumentError } from 'commander';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrateSchema, runMain } from '@lx/platform';
import { loadLocationQueryConfig } from './config/location-query.config';
import { MIGRATIONS } from './database/migrations';
import { replayReadModel } from './replay/replay-read-model';

/**
 * SRE operations of location-query, with the service's own environment (DATABASE_URL, KAFKA_BROKERS,
 * PROJECTION_GROUP_ID, …):
 *   node dist/services/location-query/services/location-query/src/cli.js replay [--timeout-minutes 60]
 *   node dist/services/location-query/services/location-query/src/cli.js migrate
 */
const program = new Command('location-query');
program
  .command('replay')
  .description(
    'Rebuild the read model from offset 0 into fresh tables and switch to them once caught up; readers are served from the old tables meanwhile',
  )
  .option('--timeout-minutes <minutes>', 'give up (keeping the current tables) after this long', positive, 24 * 60)
  .action(async (options: { timeoutMinutes: number }) => {
    const config = loadLocationQueryConfig();
    let lastPercent = -1;
    const result = await replayReadModel(config, {
      timeoutMs: options.timeoutMinutes * 60_000,
      onProgress: ({ applied, target }) => {
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
    const config = loadLocationQueryConfig();
    const dataSource = new DataSource(
      dataSourceOptions({ config: { ...config.database, poolSize: 2 }, entities: [], migrations: MIGRATIONS }),
    );
    await dataSource.initialize();
    try {
      const applied = await migrateSchema(dataSource, config.database.schema);
      process.stdout.write(`${JSON.stringify({ schema: config.database.schema, applied })}\n`);
    } finally {
      await dataSource.destroy();
    }
  });

function positive(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('must be a positive number');
  return number;
}

runMain(async () => {
  await program.parseAsync(process.argv);
});
