import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { runProjectionCli } from '@lx/messaging';
import { dataSourceOptions, pgPoolOf } from '@lx/platform';
import { resetChangeFeed } from './change-feed/infrastructure/change-feed-reset';
import { loadLocationQueryConfig } from './config/location-query.config';
import { MIGRATIONS } from './database/migrations';
import { READ_MODEL_REPLAY } from './replay/replay-read-model';

/**
 * SRE operations of location-query, with the service's own environment:
 *   node dist/services/location-query/services/location-query/src/cli.js replay [--timeout-minutes 60]
 *   node dist/services/location-query/services/location-query/src/cli.js migrate
 *   node dist/services/location-query/services/location-query/src/cli.js reset-change-feed   (service stopped)
 */
runProjectionCli({
  service: 'location-query',
  readModel: 'the read model',
  loadConfig: () => loadLocationQueryConfig(),
  target: READ_MODEL_REPLAY,
  commands: (program) => {
    program
      .command('reset-change-feed')
      .description(
        'Empty the change feed under a new epoch (every cursor handed out before gets 410) so that the next start ' +
          'of location-query fills it again from the start of the topics; run it with location-query stopped',
      )
      .action(async () => {
        const config = loadLocationQueryConfig();
        const dataSource = new DataSource(
          dataSourceOptions({ config: { ...config.database, poolSize: 1 }, entities: [], migrations: MIGRATIONS }),
        );
        await dataSource.initialize();
        try {
          const { epoch } = await resetChangeFeed(pgPoolOf(dataSource), config.changeFeed.groupId);
          process.stdout.write(`${JSON.stringify({ reset: true, epoch, groupId: config.changeFeed.groupId })}\n`);
        } finally {
          await dataSource.destroy();
        }
      });
  },
});
