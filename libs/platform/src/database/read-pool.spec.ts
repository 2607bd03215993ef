import { Bulkhead, pageSql } from './read-pool';

describe('Bulkhead', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('given free slots, when acquired, then admits at once up to the number of slots', async () => {
    const bulkhead = new Bulkhead(2, 100);
    await expect(bulkhead.acquire()).resolves.toBe(true);
    await expect(bulkhead.acquire()).resolves.toBe(true);
    expect(bulkhead.running).toBe(2);
    expect(bulkhead.queued).toBe(0);
  });

  it('given every slot taken, when one is released within the timeout, then the first waiter gets it', async () => {
    const bulkhead = new Bulkhead(1, 100);
    await bulkhead.acquire();
    const first = bulkhead.acquire();
    const second = bulkhead.acquire();
    expect(bulkhead.queued).toBe(2);
    jest.advanceTimersByTime(99);
    bulkhead.release();
    await expect(first).resolves.toBe(true);
    expect(bulkhead.running).toBe(1);
    expect(bulkhead.queued).toBe(1);
    jest.advanceTimersByTime(1);
    await expect(second).resolves.toBe(false);
    expect(bulkhead.queued).toBe(0);
  });

  it('given a waiter that timed out, when a slot is released, then it goes to the next waiter, not the one gone', async () => {
    const bulkhead = new Bulkhead(1, 100);
    await bulkhead.acquire();
    const late = bulkhead.acquire();
    jest.advanceTimersByTime(50);
    const next = bulkhead.acquire();
    jest.advanceTimersByTime(50);
    await expect(late).resolves.toBe(false);
    bulkhead.release();
    await expect(next).resolves.toBe(true);
    expect(bulkhead.running).toBe(1);
    bulkhead.release();
    expect(bulkhead.running).toBe(0);
    await expect(bulkhead.acquire()).resolves.toBe(true);
  });
});

describe('pageSql', () => {
  const list = { columns: 'id, body', table: 'locations', conditions: [], values: [] };

  it('given no filter, then the page in id order, one row beyond it, from the offset', () => {
    expect(pageSql({ ...list, page: { limit: 10, offset: 20 } })).toEqual({
      sql: expect.stringMatching(/^SELECT id, body FROM locations ORDER BY id\s+LIMIT \$1 OFFSET \$2$/),
      values: [11, 20],
    });
  });

  it('given conditions and after, then every condition and the cursor after the filter values, in id order', () => {
    const after = '7c4e0d6a-0000-4000-8000-000000000000';
    const read = pageSql({
      ...list,
      conditions: ['location_group_id = $1', 'address_group_id = $2'],
      values: ['g', 'a'],
      page: { limit: 5, offset: 0, after },
    });
    expect(read.sql).toMatch(
      /^SELECT id, body FROM locations WHERE location_group_id = \$1 AND address_group_id = \$2 AND id > \$3 ORDER BY id\s+LIMIT \$4 OFFSET \$5$/,
    );
    expect(read.values).toEqual(['g', 'a', after, 6, 0]);
  });

  it('given an order, then in that order; the values given are not changed', () => {
    const values = ['x'];
    const read = pageSql({
      ...list,
      conditions: ['name = $1'],
      values,
      order: 'name, id',
      page: { limit: 1, offset: 3 },
    });
    expect(read.sql).toMatch(/WHERE name = \$1 ORDER BY name, id\s+LIMIT \$2 OFFSET \$3$/);
    expect(read.values).toEqual(['x', 2, 3]);
    expect(values).toEqual(['x']);
  });
});
