import 'reflect-metadata';
import { runMain, runMigrations } from '@lx/platform';

/**
 * `migrate`: applies the pending migrations of the service's schema, prints {"schema","applied"} and exits; given
 * DATABASE_ADMIN_URL, first makes the service's own login the owner of its schema (provisionSchemaOwner).
 */
runMain(async () => {
  // Loaded here, not imported at the top: the data source reads the configuration, and runMain reports its errors.
  const { default: dataSource } = await import('./database/data-source');
  const { loadStatisticsProjectionConfig } = await import('./config/statistics-projection.config');
  process.stdout.write(
    `${JSON.stringify(await runMigrations(dataSource, loadStatisticsProjectionConfig().database))}\n`,
  );
});
