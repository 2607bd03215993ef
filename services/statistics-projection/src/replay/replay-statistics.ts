import type { ReplayTarget } from '@lx/messaging';
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
      rollups: tables[LIVE_TABLES.rollups]!,
    }),
};
