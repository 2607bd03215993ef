import type { Pool } from 'pg';
import { SharedRateCounts } from './shared-rate-counts';

/**
 * A pool standing in for the shared table: each sync adds the deltas it is sent to `table` and answers the totals of
 * the windows it was asked about, as the SYNC statement does; `fail` makes the next query fail, `hold` keeps the next
 * one pending until released.
 */
function fakePool() {
  const table = new Map<string, number>();
  const sent: { subjects: string[]; windows: number[]; deltas: number[] }[] = [];
  let fail: Error | undefined;
  let hold: { release: () => void } | undefined;
  const pool = {
    async query(_text: string, [subjects, windows, deltas]: [string[], number[], number[]]) {
      sent.push({ subjects, windows, deltas });
      if (hold !== undefined) await new Promise<void>((resolve) => (hold!.release = resolve));
      if (fail !== undefined) {
        const error = fail;
        fail = undefined;
        throw error;
      }
      const rows = subjects.flatMap((subject, index) => {
        const key = `${subject} ${windows[index]}`;
        if (deltas[index]! > 0) table.set(key, (table.get(key) ?? 0) + deltas[index]!);
        const requests = table.get(key);
        return requests === undefined
          ? []
          : [{ subject, window_start: String(windows[index]), requests: String(requests) }];
      });
      return { rows };
    },
  };
  return {
    pool: pool as unknown as Pool,
    table,
    sent,
    failNext: (error: Error) => (fail = error),
    holdNext: () => {
      const held = { release: () => undefined };
      hold = held;
      return () => {
        hold = undefined;
        held.release();
      };
    },
  };
}

const W = 10;
const NOW = 1_000_005;
const START = 1_000_000;

describe('SharedRateCounts', () => {
  it('given requests on two replicas, when both have synced, then each knows the total', async () => {
    const shared = fakePool();
    const a = new SharedRateCounts(shared.pool);
    const b = new SharedRateCounts(shared.pool);
    for (let i = 0; i < 3; i += 1) a.add('client/10', START, W);
    b.add('client/10', START, W);
    expect(a.counts('client/10', START, W)).toEqual({ previous: 0, current: 3 });

    await a.sync(NOW);
    await b.sync(NOW);
    await a.sync(NOW);

    expect(a.counts('client/10', START, W)).toEqual({ previous: 0, current: 4 });
    expect(b.counts('client/10', START, W)).toEqual({ previous: 0, current: 4 });
    expect(shared.table.get(`client/10 ${START}`)).toBe(4);
  });

  it('given a sync that fails, when synced again, then its requests are sent then and known meanwhile', async () => {
    const shared = fakePool();
    const counts = new SharedRateCounts(shared.pool);
    counts.add('client/10', START, W);
    counts.add('client/10', START, W);
    shared.failNext(new Error('connection refused'));

    await expect(counts.sync(NOW)).rejects.toThrow('connection refused');
    expect(counts.counts('client/10', START, W).current).toBe(2);

    await counts.sync(NOW);
    expect(shared.table.get(`client/10 ${START}`)).toBe(2);
    expect(counts.counts('client/10', START, W).current).toBe(2);
  });

  it('given requests while a sync is under way, when it ends, then they are known and sent by the next', async () => {
    const shared = fakePool();
    const counts = new SharedRateCounts(shared.pool);
    counts.add('client/10', START, W);
    const release = shared.holdNext();
    const first = counts.sync(NOW);
    counts.add('client/10', START, W);
    expect(counts.counts('client/10', START, W).current).toBe(2);
    // A second call while it runs joins it: nothing is sent twice, nothing overwritten.
    const joined = counts.sync(NOW);
    release();
    await Promise.all([first, joined]);
    expect(shared.sent).toHaveLength(1);
    expect(counts.counts('client/10', START, W).current).toBe(2);

    await counts.sync(NOW);
    expect(shared.table.get(`client/10 ${START}`)).toBe(2);
    const second = shared.sent[1]!;
    expect(Object.fromEntries(second.windows.map((window, index) => [window, second.deltas[index]]))).toEqual({
      [START]: 1,
      [START - W]: 0,
    });
  });

  it('given windows of different lengths, when synced later, then each keeps only its window under way and the one before', async () => {
    const shared = fakePool();
    const counts = new SharedRateCounts(shared.pool);
    counts.counts('short/10', START, W);
    counts.counts('long/3600', 997_200, 3_600);

    // 30 s later: the 10 s windows of START and before are out of reach; the hour's are not.
    await counts.sync(NOW + 30);
    expect(shared.sent[0]!.subjects).toEqual(['long/3600', 'long/3600']);
    expect(shared.sent[0]!.windows).toEqual([993_600, 997_200]);

    expect(await counts.sync(NOW + 7_200)).toBe(0);
  });
});
