import type { Location } from '@lx/contracts';
import { cellIn, cellOf, counterDeltas, factOf, type LocationFact } from './location-fact';

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
        { cell: { ...cellOf(before, '2024-01-15'), status: '', hasLocationGroup: true }, delta: 1 },
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
    expect(cellIn('counters', cell)).toEqual({ ...cell, country: '', region: '', day: '' });
    expect(cellIn('geoCounters', cell)).toEqual({ ...cell, day: '' });
    expect(cellIn('dayCounters', cell)).toEqual({ ...cell, country: '', region: '' });
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
