import type { Location } from '@lx/contracts';
import { cellOf, counterDeltas, factOf, type LocationFact, withoutGeography } from './location-fact';

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
    before: before === undefined ? undefined : cellOf(before),
    after: cellOf(after),
  });

  it('given a new location, when counted, then its cell gains one', () => {
    expect(counterDeltas([change(undefined, fact(withStatus(base, 'ACTIVE')))])).toEqual([
      { cell: cellOf(fact(withStatus(base, 'ACTIVE'))), delta: 1 },
    ]);
  });

  it('given a status change ACTIVE to RETIRED, when counted, then ACTIVE loses one and RETIRED gains one', () => {
    const deltas = counterDeltas([
      change(fact(withStatus(base, 'ACTIVE')), fact(withStatus(base, 'RETIRED'), 2)),
    ]);
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
        { cell: { ...cellOf(before) }, delta: -1 },
        { cell: { ...cellOf(before), status: '', hasLocationGroup: true }, delta: 1 },
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

describe('withoutGeography', () => {
  it('given cells of two regions, when summed without geography, then their changes meet in one cell', () => {
    const denver = cellOf(factOf(base, 1));
    const boulder = { ...denver, region: 'XX' };
    expect(
      counterDeltas([
        { before: withoutGeography(denver), after: withoutGeography(boulder) },
        { before: undefined, after: withoutGeography(boulder) },
      ]),
    ).toEqual([{ cell: { ...denver, country: '', region: '' }, delta: 1 }]);
  });
});
