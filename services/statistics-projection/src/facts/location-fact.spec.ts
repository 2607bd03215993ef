import type { Location } from '@lx/contracts';
import { cellIn, cellOf, counterDeltas, factOf, type LocationFact, rollupCellsOf, rollupDeltas } from './location-fact';

const base: Location = {
  id: '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11',
  createdAt: '2024-01-15T10:00:00Z',
  updatedAt: '2024-01-15T10:00:00Z',
  geography: { country: 'US', region: 'CO', locality: 'Denver', postalCode: '80202' },
  address: { streetNumber: '1', streetName: 'Main', streetType: 'ST' },
};
const groupId = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';
const withStatus = (location: Location, status: 'ACTIVE' | 'RETIRED' | 'PLANNED'): Location => ({
  ...location,
  fiberAccessDetails: { serviceability: { status } },
});

describe('factOf', () => {
  it('given a location with an address, no coordinates and no serviceability, when projected, then status is null', () => {
    expect(factOf(base, 4)).toEqual({
      locationId: base.id,
      version: 4,
      status: null,
      hasAddress: true,
      hasCoordinates: false,
      locationGroupId: null,
      addressGroupId: null,
      country: 'US',
      region: 'CO',
      locality: 'Denver',
      postalCode: '80202',
      updatedAt: base.updatedAt,
    });
  });

  it('given a grouped MDU unit with coordinates and a status, when projected, then every dimension is kept', () => {
    const location: Location = withStatus(
      {
        ...base,
        locationGroupId: groupId,
        address: { ...base.address!, addressGroupId: groupId },
        coordinates: { latitude: 1, longitude: 2 },
      },
      'ACTIVE',
    );
    expect(factOf(location, 1)).toMatchObject({
      status: 'ACTIVE',
      hasAddress: true,
      hasCoordinates: true,
      locationGroupId: groupId,
      addressGroupId: groupId,
    });
  });
});

describe('counterDeltas', () => {
  const fact = (location: Location, version = 1): LocationFact => factOf(location, version);
  const change = (before: LocationFact | undefined, after: LocationFact) => ({
    before: before === undefined ? undefined : cellOf(before, '2024-01-15'),
    after: cellOf(after, '2024-01-15'),
  });

  it('given a new location, when counted, then its cell gains one', () => {
    expect(counterDeltas([change(undefined, fact(withStatus(base, 'ACTIVE')))])).toEqual([
      { cell: cellOf(fact(withStatus(base, 'ACTIVE')), '2024-01-15'), delta: 1 },
    ]);
  });

  it('given a status change ACTIVE to RETIRED, when counted, then ACTIVE loses one and RETIRED gains one', () => {
    const deltas = counterDeltas([change(fact(withStatus(base, 'ACTIVE')), fact(withStatus(base, 'RETIRED'), 2))]);
    expect(deltas.map(({ cell, delta }) => [cell.status, delta]).sort()).toEqual([
      ['ACTIVE', -1],
      ['RETIRED', 1],
    ]);
  });

  it('given a change that keeps every counted dimension (notes, locality), when counted, then nothing changes', () => {
    const after = fact({ ...base, notes: 'x', geography: { ...base.geography, locality: 'Aurora' } }, 2);
    expect(counterDeltas([change(fact(base), after)])).toEqual([]);
  });

  it('given a move into a group and a removed status, when counted, then the old cell loses and the new gains', () => {
    const before = fact(withStatus(base, 'PLANNED'));
    const after = fact({ ...base, locationGroupId: groupId }, 2);
    expect(counterDeltas([change(before, after)])).toEqual(
      expect.arrayContaining([
        { cell: cellOf(before, '2024-01-15'), delta: -1 },
        {
          cell: { ...cellOf(before, '2024-01-15'), status: '', hasLocationGroup: true, locationGroupId: groupId },
          delta: 1,
        },
      ]),
    );
  });

  it('given two locations moving in opposite directions, when counted, then their changes cancel out', () => {
    const active = fact(withStatus(base, 'ACTIVE'));
    const planned = fact(withStatus({ ...base, id: groupId }, 'PLANNED'));
    expect(
      counterDeltas([
        change(active, { ...planned, locationId: active.locationId }),
        change(planned, { ...active, locationId: planned.locationId }),
      ]),
    ).toEqual([]);
  });

  it('given many cells, when counted, then the deltas come in one fixed order', () => {
    const statuses = ['RETIRED', 'ACTIVE', 'PLANNED'] as const;
    const deltas = counterDeltas(statuses.map((status) => change(undefined, fact(withStatus(base, status)))));
    expect(deltas.map(({ cell }) => cell.status)).toEqual(['ACTIVE', 'PLANNED', 'RETIRED']);
  });
});

describe('cellIn', () => {
  const cell = cellOf(factOf(base, 1), '2024-01-15');

  it("given a full cell, when placed in each counters table, then only that table's dimensions are kept", () => {
    const grouped = { ...cell, locationGroupId: groupId, hasLocationGroup: true };
    expect(cellIn('counters', grouped)).toEqual({ ...grouped, country: '', region: '', day: '', locationGroupId: '' });
    expect(cellIn('geoCounters', grouped)).toEqual({ ...grouped, day: '', locationGroupId: '' });
    expect(cellIn('dayCounters', grouped)).toEqual({ ...grouped, country: '', region: '', locationGroupId: '' });
  });

  it('given a change of region only, when counted without geography, then the counters do not move', () => {
    const moved = { ...cell, region: 'XX' };
    expect(counterDeltas([{ before: cellIn('counters', cell), after: cellIn('counters', moved) }])).toEqual([]);
    expect(counterDeltas([{ before: cellIn('geoCounters', cell), after: cellIn('geoCounters', moved) }])).toHaveLength(
      2,
    );
  });

  it('given an update on another day, when counted by day, then the location moves from its old day to the new one', () => {
    const later = { ...cell, day: '2024-02-01' };
    expect(counterDeltas([{ before: cellIn('dayCounters', cell), after: cellIn('dayCounters', later) }])).toEqual([
      { cell: cellIn('dayCounters', cell), delta: -1 },
      { cell: cellIn('dayCounters', later), delta: 1 },
    ]);
  });
});

describe('rollupCellsOf', () => {
  const counted = { status: 'ACTIVE', hasAddress: true, hasCoordinates: false, hasLocationGroup: true } as const;
  const blank = { country: '', region: '', locationGroupId: '' };

  it('given a grouped location, when rolled up, then it counts in every scope for its day and its month', () => {
    const cell = cellOf(
      factOf(withStatus({ ...base, locationGroupId: groupId.toUpperCase() }, 'ACTIVE'), 1),
      '2024-01-15',
    );
    const rows = rollupCellsOf(cell);
    const scopes = (granularity: string, period: string) => [
      { scope: 'all', granularity, ...blank, period, ...counted },
      { scope: 'country', granularity, ...blank, country: 'US', period, ...counted },
      { scope: 'region', granularity, ...blank, country: 'US', region: 'CO', period, ...counted },
      { scope: 'group', granularity, ...blank, locationGroupId: groupId, period, ...counted },
      { scope: 'group-country', granularity, ...blank, country: 'US', locationGroupId: groupId, period, ...counted },
      { scope: 'group-region', granularity, country: 'US', region: 'CO', locationGroupId: groupId, period, ...counted },
    ];
    expect(rows).toEqual([...scopes('day', '2024-01-15'), ...scopes('month', '2024-01-01')]);
  });

  it('given a location without a group on the last day of a year, when rolled up, then it has no group rows', () => {
    const rows = rollupCellsOf(cellOf(factOf(base, 1), '2023-12-31'));
    expect(rows.map(({ scope, granularity, period }) => `${scope}/${granularity}/${period}`)).toEqual([
      'all/day/2023-12-31',
      'country/day/2023-12-31',
      'region/day/2023-12-31',
      'all/month/2023-12-01',
      'country/month/2023-12-01',
      'region/month/2023-12-01',
    ]);
    expect(rows.every((row) => row.status === '' && !row.hasLocationGroup)).toBe(true);
  });
});

describe('rollupDeltas', () => {
  const cell = cellOf(factOf(base, 1), '2024-01-15');

  it('given a new location, when rolled up, then each of its rows gains one, in one fixed order', () => {
    const deltas = rollupDeltas([{ before: undefined, after: cell }]);
    expect(deltas).toHaveLength(6);
    expect(deltas.every(({ delta }) => delta === 1)).toBe(true);
    expect(deltas.map(({ cell: row }) => `${row.scope}/${row.granularity}`)).toEqual([
      'all/day',
      'all/month',
      'country/day',
      'country/month',
      'region/day',
      'region/month',
    ]);
  });

  it('given an update later in the same month into another region, when rolled up, then only what moved changes', () => {
    const later = { ...cell, day: '2024-01-20', region: 'TX' };
    const deltas = rollupDeltas([{ before: cell, after: later }]);
    expect(
      deltas.map(({ cell: row, delta }) => `${row.scope}/${row.granularity}/${row.region}/${row.period}:${delta}`),
    ).toEqual([
      'all/day//2024-01-15:-1',
      'all/day//2024-01-20:1',
      'country/day//2024-01-15:-1',
      'country/day//2024-01-20:1',
      'region/day/CO/2024-01-15:-1',
      'region/day/TX/2024-01-20:1',
      'region/month/CO/2024-01-01:-1',
      'region/month/TX/2024-01-01:1',
    ]);
  });

  it('given a location leaving its group, when rolled up, then the group rows lose it', () => {
    const grouped = { ...cell, locationGroupId: groupId, hasLocationGroup: true };
    const deltas = rollupDeltas([{ before: grouped, after: cell }]);
    expect(deltas.filter(({ cell: row }) => row.scope === 'group')).toEqual([
      { cell: expect.objectContaining({ granularity: 'day', locationGroupId: groupId, region: '' }), delta: -1 },
      { cell: expect.objectContaining({ granularity: 'month', locationGroupId: groupId, region: '' }), delta: -1 },
    ]);
    expect(deltas.filter(({ cell: row }) => row.scope === 'group-region')).toEqual([
      { cell: expect.objectContaining({ granularity: 'day', locationGroupId: groupId, region: 'CO' }), delta: -1 },
      { cell: expect.objectContaining({ granularity: 'month', locationGroupId: groupId, region: 'CO' }), delta: -1 },
    ]);
    expect(deltas).toHaveLength(18);
  });
});
