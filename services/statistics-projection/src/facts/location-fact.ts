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
 * address, coordinates, grouping), plus country and region for the geography counters and the UTC day of updatedAt
 * for the day counters. `status` '' stands for "no serviceability status" (a key column cannot be null); each counters
 * table keeps only its own dimensions and blanks ('') the others.
 */
export interface CounterCell {
  country: string;
  region: string;
  /** YYYY-MM-DD, the UTC date of updatedAt as Postgres stores it. */
  day: string;
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
  const deltas = new Map<string, CounterDelta>();
  const add = (cell: CounterCell, delta: number) => {
    const key = keyOf(cell);
    const entry = deltas.get(key) ?? { cell, delta: 0 };
    entry.delta += delta;
    deltas.set(key, entry);
  };
  for (const { before, after } of changes) {
    if (before !== undefined) add(before, -1);
    add(after, +1);
  }
  return [...deltas.entries()]
    .filter(([, entry]) => entry.delta !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, entry]) => entry);
}
