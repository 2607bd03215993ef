import type { Location, ServiceabilityStatus } from '@lx/contracts';

/** What statistics need of one location: its filters' columns and the dimensions it is counted by. */
export interface LocationFact {
  locationId: string;
  version: number;
  /** null: the location has no serviceability status. */
  status: ServiceabilityStatus | null;
  hasAddress: boolean;
  hasCoordinates: boolean;
  locationGroupId: string | null;
  addressGroupId: string | null;
  country: string;
  region: string;
  locality: string;
  postalCode: string;
  updatedAt: string;
}

/** The fact of a location at a version. */
export function factOf(location: Location, version: number): LocationFact {
  return {
    locationId: location.id,
    version,
    status: location.fiberAccessDetails?.serviceability?.status ?? null,
    hasAddress: location.address !== undefined,
    hasCoordinates: location.coordinates !== undefined,
    locationGroupId: location.locationGroupId ?? null,
    addressGroupId: location.address?.addressGroupId ?? null,
    country: location.geography.country,
    region: location.geography.region,
    locality: location.geography.locality,
    postalCode: location.geography.postalCode,
    updatedAt: location.updatedAt,
  };
}

/**
 * A cell of the maintained counters: the dimensions every countByStatus / countByType answer is a sum over (status,
 * address, coordinates, grouping), plus country and region for the geography counters, the UTC day of updatedAt
 * for the day counters and the location group for the rollups. `status` '' stands for "no serviceability status" (a
 * key column cannot be null); each counters table keeps only its own dimensions and blanks ('') the others.
 */
export interface CounterCell {
  country: string;
  region: string;
  /** YYYY-MM-DD, the UTC date of updatedAt as Postgres stores it. */
  day: string;
  /** The location group's id in lowercase, '' for none. */
  locationGroupId: string;
  status: ServiceabilityStatus | '';
  hasAddress: boolean;
  hasCoordinates: boolean;
  hasLocationGroup: boolean;
}

/** The counters cell a fact is counted in; `day` as Postgres computed it from the stored updated_at. */
export function cellOf(
  fact: Pick<LocationFact, 'country' | 'region' | 'status' | 'hasAddress' | 'hasCoordinates' | 'locationGroupId'>,
  day: string,
): CounterCell {
  return {
    country: fact.country,
    region: fact.region,
    day,
    locationGroupId: fact.locationGroupId?.toLowerCase() ?? '',
    status: fact.status ?? '',
    hasAddress: fact.hasAddress,
    hasCoordinates: fact.hasCoordinates,
    hasLocationGroup: fact.locationGroupId !== null,
  };
}

/** The three counters tables and the dimensions each keeps besides status, address, coordinates and grouping. */
export const COUNTER_TABLES = {
  counters: [],
  geoCounters: ['country', 'region'],
  dayCounters: ['day'],
} as const satisfies Record<string, readonly ('country' | 'region' | 'day')[]>;

/** A counters table: its key dimensions. */
export type CounterTable = keyof typeof COUNTER_TABLES;

/** The cell of `table` that a full cell adds to: the dimensions the table does not keep are blanked. */
export function cellIn(table: CounterTable, cell: CounterCell): CounterCell {
  const kept: readonly string[] = COUNTER_TABLES[table];
  return {
    ...cell,
    country: kept.includes('country') ? cell.country : '',
    region: kept.includes('region') ? cell.region : '',
    day: kept.includes('day') ? cell.day : '',
    locationGroupId: '',
  };
}

/** A change of the counters: `delta` locations more (or fewer) in `cell`. */
export interface CounterDelta {
  cell: CounterCell;
  delta: number;
}

/** A location moving from the cell of its stored fact (none when new) to the cell of its new fact. */
export interface CellChange {
  before: CounterCell | undefined;
  after: CounterCell;
}

const keyOf = (cell: CounterCell) =>
  JSON.stringify([
    cell.country,
    cell.region,
    cell.day,
    cell.locationGroupId,
    cell.status,
    cell.hasAddress,
    cell.hasCoordinates,
    cell.hasLocationGroup,
  ]);

/**
 * The counter changes of replacing facts: each location leaves its old cell (if any) and enters its new one; a change
 * within one cell cancels out. Sorted by cell, so concurrent transactions update counter rows in one order and never
 * deadlock.
 */
export function counterDeltas(changes: readonly CellChange[]): CounterDelta[] {
  return summed(
    changes.flatMap(({ before, after }) => [
      ...(before === undefined ? [] : [{ cell: before, delta: -1 }]),
      { cell: after, delta: 1 },
    ]),
    keyOf,
  );
}

/**
 * Where a rollup counts: every location, a country, a country and region, a location group, a location group within a
 * country, a location group within a country and region (a group with a geography filter).
 */
export const ROLLUP_SCOPES = ['all', 'country', 'region', 'group', 'group-country', 'group-region'] as const;
export type RollupScope = (typeof ROLLUP_SCOPES)[number];

/** A rollup's period: a UTC day of updatedAt, or a calendar month of them. */
export type RollupGranularity = 'day' | 'month';

/**
 * A row of the rollups: the locations of a scope whose updatedAt falls in a period, by the counted dimensions. The
 * scope's own keys are set (country for `country`; country and region for `region`; the group for `group`; the group
 * and country for `group-country`; all three for `group-region`), the others are ''. `period` is the day, or the
 * first day of the month (YYYY-MM-DD).
 */
export interface RollupCell {
  scope: RollupScope;
  granularity: RollupGranularity;
  country: string;
  region: string;
  locationGroupId: string;
  period: string;
  status: CounterCell['status'];
  hasAddress: boolean;
  hasCoordinates: boolean;
  hasLocationGroup: boolean;
}

/** A change of the rollups: `delta` locations more (or fewer) in `cell`. */
export interface RollupDelta {
  cell: RollupCell;
  delta: number;
}

/**
 * The keys each scope keeps of a location (the others are ''): the scopes with the location group count only the
 * locations that have one. One definition for the projection's rows (rollupCellsOf) and the replay's (fillAggregatesFromFacts).
 */
export const ROLLUP_SCOPE_KEYS: Record<RollupScope, { group: boolean; country: boolean; region: boolean }> = {
  all: { group: false, country: false, region: false },
  country: { group: false, country: true, region: false },
  region: { group: false, country: true, region: true },
  group: { group: true, country: false, region: false },
  'group-country': { group: true, country: true, region: false },
  'group-region': { group: true, country: true, region: true },
};

/**
 * The rollup rows a location in `cell` is counted in: for the day and for the month of its updatedAt, one row each
 * for all locations, its country, its country and region, and (when it has one) its location group, alone, within
 * its country, and within its country and region.
 */
export function rollupCellsOf(cell: CounterCell): RollupCell[] {
  const counted = {
    status: cell.status,
    hasAddress: cell.hasAddress,
    hasCoordinates: cell.hasCoordinates,
    hasLocationGroup: cell.hasLocationGroup,
  };
  const periods: [RollupGranularity, string][] = [
    ['day', cell.day],
    ['month', `${cell.day.slice(0, 8)}01`],
  ];
  return periods.flatMap(([granularity, period]) =>
    ROLLUP_SCOPES.flatMap((scope) => {
      const keeps = ROLLUP_SCOPE_KEYS[scope];
      if (keeps.group && cell.locationGroupId === '') return [];
      const key = {
        country: keeps.country ? cell.country : '',
        region: keeps.region ? cell.region : '',
        locationGroupId: keeps.group ? cell.locationGroupId : '',
      };
      return [{ scope, granularity, ...key, period, ...counted }];
    }),
  );
}

const rollupKeyOf = (cell: RollupCell) =>
  JSON.stringify([
    cell.scope,
    cell.granularity,
    cell.locationGroupId,
    cell.country,
    cell.region,
    cell.period,
    cell.status,
    cell.hasAddress,
    cell.hasCoordinates,
    cell.hasLocationGroup,
  ]);

/**
 * The rollup changes of replacing facts: each location leaves the rows of its old cell and enters those of its new
 * one; what cancels out is dropped; sorted like counterDeltas, for the same reason.
 */
export function rollupDeltas(changes: readonly CellChange[]): RollupDelta[] {
  return summed(
    changes.flatMap(({ before, after }) => [
      ...(before === undefined ? [] : rollupCellsOf(before).map((cell) => ({ cell, delta: -1 }))),
      ...rollupCellsOf(after).map((cell) => ({ cell, delta: 1 })),
    ]),
    rollupKeyOf,
  );
}

/** Sums the deltas of equal cells, drops those that cancel out and sorts the rest by key. */
function summed<C>(
  entries: readonly { cell: C; delta: number }[],
  key: (cell: C) => string,
): { cell: C; delta: number }[] {
  const sums = new Map<string, { cell: C; delta: number }>();
  for (const { cell, delta } of entries) {
    const name = key(cell);
    const entry = sums.get(name) ?? { cell, delta: 0 };
    entry.delta += delta;
    sums.set(name, entry);
  }
  return [...sums.entries()]
    .filter(([, entry]) => entry.delta !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, entry]) => entry);
}
