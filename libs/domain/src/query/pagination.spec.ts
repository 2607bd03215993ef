import { paginationOf } from './pagination';

describe('paginationOf', () => {
  it('given an exact total and no next page, when built, then only limit, offset and total', () => {
    expect(paginationOf({ limit: 10, offset: 20 }, { total: 25, totalEstimated: false })).toStrictEqual({
      limit: 10,
      offset: 20,
      total: 25,
    });
  });

  it('given an estimated total and a next page, when built, then both are flagged', () => {
    expect(
      paginationOf({ limit: 10, offset: 0, after: 'a' }, { total: 12_345, totalEstimated: true, next: 'b' }),
    ).toStrictEqual({ limit: 10, offset: 0, total: 12_345, totalEstimated: true, next: 'b' });
  });
});
