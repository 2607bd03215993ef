import { type ReplayOptions, replayProjection, type ReplayTarget, type RebuildResult } from '@lx/messaging';
import type { StatisticsProjectionConfig } from '../config/statistics-projection.config';
import { MIGRATIONS } from '../database/migrations';
import { LocationFactsProjection } from '../facts/location-facts.projection';
import { LIVE_TABLES, REBUILT_TABLES } from '../facts/statistics-tables';

/** The statistics facts and counters as a replay rebuilds them. */
export const STATISTICS_REPLAY: ReplayTarget = {
  migrations: MIGRATIONS,
  tables: REBUILT_TABLES,
  projectionFor: (tables) =>
    new LocationFactsProjection({
      facts: tables[LIVE_TABLES.facts]!,
      counters: tables[LIVE_TABLES.counters]!,
      geoCounters: tables[LIVE_TABLES.geoCounters]!,
      dayCounters: tables[LIVE_TABLES.dayCounters]!,
    }),
};

/** Rebuilds the statistics facts and counters from offset 0 beside the running service, then switches to them. */
export function replayStatistics(
  config: StatisticsProjectionConfig,
  options: ReplayOptions = {},
): Promise<RebuildResult> {
  return replayProjection(config, STATISTICS_REPLAY, options);
}
