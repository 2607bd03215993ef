import 'reflect-metadata';
import { runMain, runMigrations } from '@lx/platform';

/** `migrate`: applies the pending migrations of the service's schema, prints {"schema","applied"} and exits. */
runMain(async () => {
  // Loaded here, not imported at the top: the data source reads the configuration, and runMain reports its errors.
  const { default: dataSource } = await import('./database/data-source');
  process.stdout.write(`${JSON.stringify(await runMigrations(dataSource))}\n`);
});
