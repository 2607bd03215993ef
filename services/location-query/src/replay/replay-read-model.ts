import type { ReplayTarget } from '@lx/messaging';
import { MIGRATIONS } from '../database/migrations';
import { LocationReadModelProjection } from '../read-model/location-read-model.projection';
import { LIVE_TABLES, REBUILT_TABLES } from '../read-model/read-model-tables';

/** The location read model as a replay rebuilds it. */
export const READ_MODEL_REPLAY: ReplayTarget = {
  migrations: MIGRATIONS,
  tables: REBUILT_TABLES,
  projectionFor: (tables) =>
    new LocationReadModelProjection({
      locations: tables[LIVE_TABLES.locations]!,
      locationGroups: tables[LIVE_TABLES.locationGroups]!,
      addressGroups: tables[LIVE_TABLES.addressGroups]!,
      digestNodes: tables[LIVE_TABLES.digestNodes]!,
    }),
};
