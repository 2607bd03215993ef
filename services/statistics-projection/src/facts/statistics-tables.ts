/** The tables of the statistics projection, by role; a rebuild points the projection at fresh copies of them. */
export interface StatisticsTables {
  facts: string;
  counters: string;
  geoCounters: string;
  dayCounters: string;
  rollups: string;
}

export const LIVE_TABLES: StatisticsTables = {
  facts: 'location_facts',
  counters: 'location_counters',
  geoCounters: 'location_geo_counters',
  dayCounters: 'location_day_counters',
  rollups: 'location_rollups',
};

/**
 * Live table names in the order a rebuild locks them at the switch: the order in which a statistics query names them
 * (the rollups before the facts), so a query and the switch never wait on each other in a cycle.
 */
export const REBUILT_TABLES = [
  LIVE_TABLES.rollups,
  LIVE_TABLES.counters,
  LIVE_TABLES.geoCounters,
  LIVE_TABLES.dayCounters,
  LIVE_TABLES.facts,
];

/** The counted dimensions, the last key columns of every counters table and of the rollups. */
export const COUNTED_COLUMNS = ['status', 'has_address', 'has_coordinates', 'has_location_group'] as const;

export const STATISTICS_TABLES_TOKEN = Symbol('STATISTICS_TABLES');
