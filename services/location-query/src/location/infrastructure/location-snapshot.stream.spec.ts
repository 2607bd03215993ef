import { inlineParameters, snapshotWhere } from './location-snapshot.stream';

describe('snapshotWhere', () => {
  const groupId = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';

  it('given no filter, when built, then every location', () => {
    expect(snapshotWhere({})).toEqual({ where: '', values: [] });
  });

  it.each([
    [{ modifiedSince: '2024-05-01T00:00:00Z' }, 'WHERE updated_at > $1', ['2024-05-01T00:00:00Z']],
    [{ locationGroupId: groupId }, 'WHERE location_group_id = $1', [groupId]],
    [
      { modifiedSince: '2024-05-01T00:00:00Z', locationGroupId: groupId },
      'WHERE updated_at > $1 AND location_group_id = $2',
      ['2024-05-01T00:00:00Z', groupId],
    ],
  ])('given %j, when built, then %s', (filter, where, values) => {
    expect(snapshotWhere(filter)).toEqual({ where, values });
  });
});

describe('inlineParameters', () => {
  it('writes each parameter in as a quoted literal, the same WHERE the count runs with parameters', () => {
    const { where, values } = snapshotWhere({
      modifiedSince: '2024-05-01T00:00:00Z',
      locationGroupId: '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50',
    });
    expect(inlineParameters(where, values)).toBe(
      "WHERE updated_at > '2024-05-01T00:00:00Z' AND location_group_id = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50'",
    );
  });

  it('given a quote in a value, then it is escaped', () => {
    expect(inlineParameters('WHERE a = $1', ["x' OR '1'='1"])).toBe("WHERE a = 'x'' OR ''1''=''1'");
  });
});
