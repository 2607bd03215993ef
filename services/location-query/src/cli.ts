import 'reflect-metadata';
import { runProjectionCli } from '@lx/messaging';
import { loadLocationQueryConfig } from './config/location-query.config';
import { READ_MODEL_REPLAY } from './replay/replay-read-model';

/**
 * SRE operations of location-query, with the service's own environment:
 *   node dist/services/location-query/services/location-query/src/cli.js replay [--timeout-minutes 60]
 *   node dist/services/location-query/services/location-query/src/cli.js migrate
 */
runProjectionCli({
  service: 'location-query',
  readModel: 'the read model',
  loadConfig: () => loadLocationQueryConfig(),
  target: READ_MODEL_REPLAY,
});
