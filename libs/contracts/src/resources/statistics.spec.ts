import { issuesOf } from '../testing/fixtures';
import { statisticsResponseSchema } from './statistics';

const reply = {
  totalCount: 10,
  countByStatus: { PLANNED: 1, CONSTRUCTION: 2, ACTIVE: 3, INACTIVE: 1, CANCELLED: 2, RETIRED: 1 },
  countByType: { addressOnly: 3, coordinatesOnly: 2, addressAndCoordinates: 5, grouped: 4, standalone: 6 },
  queryTimestamp: '2024-03-01T00:00:00Z',
};

describe('statisticsResponseSchema', () => {
  it('given all six status keys and all five type keys, when validated, then the reply is accepted', () => {
    expect(issuesOf(statisticsResponseSchema, reply)).toEqual([]);
  });

  it('given a missing status key and an extra type key, when validated, then both are named', () => {
    const { RETIRED: _retired, ...countByStatus } = reply.countByStatus;
    expect(
      issuesOf(statisticsResponseSchema, { ...reply, countByStatus, countByType: { ...reply.countByType, mdu: 1 } }),
    ).toEqual([
      { field: 'countByStatus.RETIRED', rule: 'required', message: 'countByStatus.RETIRED is required' },
      { field: 'countByType.mdu', rule: 'unknownField', message: 'unknown field "countByType.mdu"' },
    ]);
  });

  it('given a negative count and a local queryTimestamp, when validated, then both are named', () => {
    expect(
      issuesOf(statisticsResponseSchema, { ...reply, totalCount: -1, queryTimestamp: '2024-03-01T00:00:00' }),
    ).toEqual([
      { field: 'totalCount', rule: 'min', message: 'totalCount must be at least 0' },
      {
        field: 'queryTimestamp',
        rule: 'dateTime',
        message: 'queryTimestamp must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
      },
    ]);
  });
});
