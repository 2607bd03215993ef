import { type ReplayOptions, replayProjection, type ReplayTarget, type RebuildResult } from '@lx/messaging';
import type { LocationQueryConfig } from '../config/location-query.config';
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
    }),
};

/** Rebuilds the location read model from offset 0 beside the running service, then switches to it. */
export function replayReadModel(config: LocationQueryConfig, options: ReplayOptions = {}): Promise<RebuildResult> {
  return replayProjection(config, READ_MODEL_REPLAY, options);
}
