import { randomUUID } from 'node:crypto';
import type { ChangePage, LxApiClient } from '../api/lx-api.client';
import { LxSyncError } from '../errors';
import type { MirrorStore } from '../store/mirror-store';
import { useSqliteMirror } from '../../test/sqlite-mirror';
import { CatchUpFeed, EXPORT_TIMESTAMP, FEED_CURSOR } from './catch-up-feed.use-case';
import type { LoadExport } from './load-export.use-case';

const change = (id: string, version: number) => ({
  event: { id: randomUUID(), type: 'LOCATION_UPDATED', timestamp: '', data: { id }, version },
});

/** The feed side of the API: pages by cursor, and a 410 for a cursor named expired. */
class FeedSide {
  readonly asked: (string | undefined)[] = [];
  constructor(
    private readonly pages: Record<string, ChangePage>,
    private readonly expired = new Set<string>(),
  ) {}
  changes(after: string | undefined) {
    this.asked.push(after);
    if (after !== undefined && this.expired.has(after)) {
      return Promise.reject(new LxSyncError('FEED_EXPIRED', 'behind the retention'));
    }
    return Promise.resolve(this.pages[after ?? 'start']!);
  }
}

describe('CatchUpFeed', () => {
  const mirror = useSqliteMirror();
  let store: MirrorStore;
  beforeAll(() => {
    store = mirror();
  });

  it('applies pages with their cursor, newer versions only, and passes over a malformed change', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const side = new FeedSide({
      start: { changes: [change(a, 2), { event: { type: 'LOCATION_UPDATED', data: {} } }], next: 'c1', hasMore: true },
      c1: { changes: [change(a, 1), change(b, 1)], next: 'c2', hasMore: false },
    });
    const feed = new CatchUpFeed(side as unknown as LxApiClient, store, {} as LoadExport);
    const result = await feed.execute();
    expect(result).toMatchObject({ changes: 4, applied: 2, rejoined: false });
    expect(result.skipped).toEqual([expect.stringMatching(/without data.id or a version/)]);
    expect(await store.state(FEED_CURSOR)).toBe('c2');
    expect((await store.row('locations', a))?.version).toBe(2);
  });

  it('rejoins by an incremental export since the mirror last export when its cursor expired, then reads from the start', async () => {
    await store.transaction(async (tx) => {
      await tx.setState(FEED_CURSOR, 'old');
      await tx.setState(EXPORT_TIMESTAMP, '2026-11-20T00:00:00.000Z');
    });
    const side = new FeedSide({ start: { changes: [], next: 'fresh', hasMore: false } }, new Set(['old']));
    const loads: unknown[] = [];
    const loadExport = { execute: (request: unknown) => (loads.push(request), Promise.resolve()) };
    const result = await new CatchUpFeed(
      side as unknown as LxApiClient,
      store,
      loadExport as unknown as LoadExport,
    ).execute();
    expect(result.rejoined).toBe(true);
    expect(loads).toEqual([{ modifiedSince: '2026-11-20T00:00:00.000Z' }]);
    expect(side.asked).toEqual(['old', undefined]);
    expect(await store.state(FEED_CURSOR)).toBe('fresh');
  });
});
