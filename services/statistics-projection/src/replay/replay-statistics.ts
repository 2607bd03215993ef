import type { ReplayTarget } from '@lx/messaging';
import { MIGRATIONS } from '../database/migrations';
import { fillAggregatesFromFacts } from '../facts/aggregates-from-facts';
import { LocationFactsProjection } from '../facts/location-facts.projection';
import { LIVE_TABLES, REBUILT_TABLES, type StatisticsTables } from '../facts/statistics-tables';

/** The rebuilt table for each role. */
const rebuilt = (tables: Readonly<Record<string, string>>): StatisticsTables => ({
  facts: tables[LIVE_TABLES.facts]!,
  counters: tables[LIVE_TABLES.counters]!,
  geoCounters: tables[LIVE_TABLES.geoCounters]!,
  dayCounters: tables[LIVE_TABLES.dayCounters]!,
  rollups: tables[LIVE_TABLES.rollups]!,
});

/**
 * The statistics facts, counters and rollups as a replay rebuilds them: the facts alone up to the end of the log, the
 * counters and rollups derived from them at once, then the full projection up to the switch.
 */
export const STATISTICS_REPLAY: ReplayTarget = {
  migrations: MIGRATIONS,
  tables: REBUILT_TABLES,
  projectionFor: (tables) => new LocationFactsProjection(rebuilt(tables)),
  bulk: {
    projectionFor: (tables) => LocationFactsProjection.factsOnly(rebuilt(tables)),
    complete: (transaction, tables) => fillAggregatesFromFacts(transaction, rebuilt(tables)),
    // The facts-only projection reads the facts by primary key alone.
    deferIndexes: true,
  },
};
