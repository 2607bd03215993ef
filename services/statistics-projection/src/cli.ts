import 'reflect-metadata';
import { runProjectionCli } from '@lx/messaging';
import { loadStatisticsProjectionConfig } from './config/statistics-projection.config';
import { STATISTICS_REPLAY } from './replay/replay-statistics';

/**
 * SRE operations of statistics-projection, with the service's own environment:
 *   node dist/services/statistics-projection/services/statistics-projection/src/cli.js replay [--timeout-minutes 60]
 *   node dist/services/statistics-projection/services/statistics-projection/src/cli.js migrate
 */
runProjectionCli({
  service: 'statistics-projection',
  readModel: 'the facts, counters and rollups',
  loadConfig: () => loadStatisticsProjectionConfig(),
  target: STATISTICS_REPLAY,
});
