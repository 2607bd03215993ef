import { issuesOf } from '../testing/fixtures';
import {
  addressGroupInputSchema,
  addressGroupListSchema,
  addressGroupSchema,
  locationGroupInputSchema,
  locationGroupListSchema,
  locationGroupSchema,
  paginationSchema,
} from './groups';

const id = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';

describe('location groups', () => {
  it('given id, name and type OTHER, when validated, then the group is accepted', () => {
    expect(issuesOf(locationGroupSchema, { id, name: 'Phase 1', type: 'OTHER' })).toEqual([]);
  });

  it('given type MDU_COMPLEX, when validated, then only OTHER is allowed', () => {
    expect(issuesOf(locationGroupSchema, { id, name: 'Phase 1', type: 'MDU_COMPLEX' })).toEqual([
      { field: 'type', rule: 'enum', message: 'type must be OTHER' },
    ]);
  });

  it('given a group with member ids, when validated, then the extra field is unknown', () => {
    expect(issuesOf(locationGroupSchema, { id, name: 'Phase 1', type: 'OTHER', locationIds: [] })).toEqual([
      { field: 'locationIds', rule: 'unknownField', message: 'unknown field "locationIds"' },
    ]);
  });

  it('given an input with an id, when validated, then the id belongs to the server', () => {
    expect(issuesOf(locationGroupInputSchema, { id, name: 'Phase 1', type: 'OTHER' })).toEqual([
      { field: 'id', rule: 'unknownField', message: 'unknown field "id"' },
    ]);
  });

  it('given an input with an empty name, when validated, then the name must not be empty', () => {
    expect(issuesOf(locationGroupInputSchema, { name: '', type: 'OTHER' })).toEqual([
      { field: 'name', rule: 'nonEmpty', message: 'name must not be empty' },
    ]);
  });
});

describe('address groups', () => {
  it('given id, name and type MDU_COMPLEX, when validated, then the group is accepted', () => {
    expect(issuesOf(addressGroupSchema, { id, name: 'Tower A', type: 'MDU_COMPLEX' })).toEqual([]);
  });

  it('given type OTHER, when validated, then only MDU_COMPLEX is allowed', () => {
    expect(issuesOf(addressGroupInputSchema, { name: 'Tower A', type: 'OTHER' })).toEqual([
      { field: 'type', rule: 'enum', message: 'type must be MDU_COMPLEX' },
    ]);
  });
});

describe('group lists', () => {
  const pagination = { limit: 100, offset: 0, total: 1 };

  it('given locationGroups and pagination, when validated, then the list is accepted', () => {
    expect(
      issuesOf(locationGroupListSchema, { locationGroups: [{ id, name: 'P', type: 'OTHER' }], pagination }),
    ).toEqual([]);
  });

  it('given an address group list under the location key, when validated, then addressGroups is required', () => {
    expect(issuesOf(addressGroupListSchema, { locationGroups: [], pagination })).toEqual([
      { field: 'addressGroups', rule: 'required', message: 'addressGroups is required' },
      { field: 'locationGroups', rule: 'unknownField', message: 'unknown field "locationGroups"' },
    ]);
  });

  it('given a tombstone with deletedAt beside a live group, when validated, then the list is accepted', () => {
    const tombstone = { id, name: 'T', type: 'MDU_COMPLEX', deletedAt: '2024-05-01T10:00:00.123Z' };
    expect(
      issuesOf(addressGroupListSchema, {
        addressGroups: [{ id, name: 'U', type: 'MDU_COMPLEX' }, tombstone],
        pagination: { ...pagination, total: 2 },
      }),
    ).toEqual([]);
  });

  it('given a tombstone whose deletedAt is not a UTC date-time, when validated, then deletedAt is named', () => {
    expect(
      issuesOf(locationGroupListSchema, {
        locationGroups: [{ id, name: 'P', type: 'OTHER', deletedAt: '2024-05-01 10:00' }],
        pagination,
      }),
    ).toEqual([expect.objectContaining({ field: 'locationGroups[0].deletedAt', rule: 'dateTime' })]);
  });

  it('given a bad group inside a list, when validated, then the item is named by index', () => {
    expect(issuesOf(addressGroupListSchema, { addressGroups: [{ id, name: 'T', type: 'OTHER' }], pagination })).toEqual(
      [{ field: 'addressGroups[0].type', rule: 'enum', message: 'addressGroups[0].type must be MDU_COMPLEX' }],
    );
  });

  it.each([
    [
      { limit: 0, offset: 0, total: 0 },
      { field: 'limit', rule: 'min', message: 'limit must be at least 1' },
    ],
    [
      { limit: 1001, offset: 0, total: 0 },
      { field: 'limit', rule: 'max', message: 'limit must be at most 1000' },
    ],
    [
      { limit: 10, offset: -1, total: 0 },
      { field: 'offset', rule: 'min', message: 'offset must be at least 0' },
    ],
    [
      { limit: 10, offset: 0, total: 1.5 },
      { field: 'total', rule: 'type', message: 'total must be an integer' },
    ],
  ])('given pagination %p, when validated, then %p', (value, issue) => {
    expect(issuesOf(paginationSchema, value)).toEqual([issue]);
  });

  it('given an estimated total and a next page, when validated, then both are accepted; a flag not boolean is not', () => {
    const next = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';
    expect(issuesOf(paginationSchema, { limit: 10, offset: 0, total: 12_345, totalEstimated: true, next })).toEqual([]);
    expect(issuesOf(paginationSchema, { limit: 10, offset: 0, total: 1, totalEstimated: 'yes' })).toEqual([
      expect.objectContaining({ field: 'totalEstimated' }),
    ]);
    expect(issuesOf(paginationSchema, { limit: 10, offset: 0, total: 1, next: 'x' })).toEqual([
      expect.objectContaining({ field: 'next' }),
    ]);
  });
});
