import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DigestEntry, digestNodeHolds, digestTree, DIGEST } from '@lx/contracts';
import type { LxApiClient, MirrorResource } from '../api/lx-api.client';
import type { MirrorStore } from '../store/mirror-store';
import { openMirrorStore } from '../store/open-mirror-store';
import { diffEntries, differingChildren, ENTRY_THRESHOLD, VerifyMirror } from './verify-mirror.use-case';

/**
 * The operator's side of the digest, computed by the contracts' reference (digestTree) from a list of entries, in
 * place of the HTTP client: this tests the descent, the HTTP API has its own tests (and lx-sync's system test uses it).
 */
class DigestSide {
  readonly requests = { api: 0, token: 0 };
  constructor(readonly entries: Record<MirrorResource, DigestEntry[]>) {}

  digestNode(resource: MirrorResource, prefix: string, depth: number) {
    this.requests.api++;
    expect(prefix.length + depth).toBeLessThanOrEqual(DIGEST.maxPrefixLength);
    return Promise.resolve({
      resource,
      ...digestTree(this.entries[resource], prefix, depth),
      position: {},
      computedAt: '',
    });
  }

  digestEntries(resource: MirrorResource, prefix: string) {
    this.requests.api++;
    const entries = this.entries[resource]
      .filter((entry) => digestNodeHolds(prefix, entry.id))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(entries.length).toBeLessThanOrEqual(DIGEST.maxEntries);
    return Promise.resolve({ resource, ...digestTree(entries, prefix, 0), entries, position: {}, computedAt: '' });
  }
}

describe('VerifyMirror', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lx-sync-verify-'));
  let store: MirrorStore;
  const server: Record<MirrorResource, DigestEntry[]> = { locations: [], locationGroups: [], addressGroups: [] };
  const body = (id: string) => JSON.stringify({ id });

  beforeAll(async () => {
    store = await openMirrorStore(join(dir, 'mirror.db'));
    server.locations = Array.from({ length: 20_000 }, () => ({
      id: randomUUID(),
      version: 1 + Math.floor(Math.random() * 3),
    }));
    server.locationGroups = Array.from({ length: 40 }, () => ({ id: randomUUID(), version: 1 }));
    await store.transaction(async (tx) => {
      for (const [resource, entries] of Object.entries(server) as [MirrorResource, DigestEntry[]][]) {
        for (const { id, version } of entries)
          await tx.apply(resource, { id, version, deleted: false, body: body(id) });
      }
    });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const verify = (side: DigestSide) =>
    new VerifyMirror(side as unknown as LxApiClient, store).execute({ confirmDelayMs: 0 });

  it('finds nothing, with one digest request per resource, when the mirror is equal', async () => {
    const report = await verify(new DigestSide(server));
    expect(report.drifted).toEqual([]);
    expect(report.requests).toBe(3);
    expect(report.counts.locations).toEqual({ server: 20_000, mirror: 20_000 });
  });

  it('finds exactly the drifted ids (missing, extra, stale; groups too) with few requests', async () => {
    const [lost, stale] = [server.locations[10]!, server.locations[20]!];
    const added = randomUUID();
    const groupLost = server.locationGroups[3]!;
    await store.transaction(async (tx) => {
      await tx.removeIf('locations', lost.id, lost.version);
      const edited = { id: stale.id, version: stale.version + 5, deleted: false, body: body(stale.id) };
      await tx.replace('locations', edited, stale.version);
      await tx.replace('locations', { id: added, version: 1, deleted: false, body: body(added) }, undefined);
      await tx.removeIf('locationGroups', groupLost.id, groupLost.version);
    });
    const report = await verify(new DigestSide(server));
    expect(report.drifted).toEqual(
      expect.arrayContaining([
        { resource: 'locations', id: lost.id, server: lost.version },
        { resource: 'locations', id: stale.id, server: stale.version, mirror: stale.version + 5 },
        { resource: 'locations', id: added, mirror: 1 },
        { resource: 'locationGroups', id: groupLost.id, server: 1 },
      ]),
    );
    expect(report.drifted).toHaveLength(4);
    // Each resource's root with its children three digits deep, then one entries request per differing node (the
    // 20,000 locations are more than one entries request may list, so the root is not listed whole).
    // (Fewer when two drifted ids share a three-digit node.)
    expect(report.requests).toBeLessThanOrEqual(3 + 3 + 1);
    expect(report.requests).toBeGreaterThanOrEqual(3 + 2);
  });

  it('reports only what still differs after the confirmation delay (a change in flight settles meanwhile)', async () => {
    const settling = server.locations[30]!;
    await store.transaction((tx) => tx.removeIf('locations', settling.id, settling.version).then(() => undefined));
    const lost = server.locations[40]!;
    await store.transaction((tx) => tx.removeIf('locations', lost.id, lost.version).then(() => undefined));
    // The first pass finds both missing; before the confirmation, the first one arrives (as a webhook would bring it).
    const arriving = setTimeout(() => {
      void store.transaction((tx) =>
        tx.apply('locations', { id: settling.id, version: settling.version, deleted: false, body: body(settling.id) }),
      );
    }, 50);
    const report = await new VerifyMirror(new DigestSide(server) as unknown as LxApiClient, store).execute({
      confirmDelayMs: 300,
    });
    clearTimeout(arriving);
    expect(report.drifted.filter((item) => item.id === settling.id || item.id === lost.id)).toEqual([
      { resource: 'locations', id: lost.id, server: lost.version },
    ]);
  });

  it('compares pure node and entry lists by count, hash and version', () => {
    expect(
      differingChildren(
        [
          { prefix: 'a', count: 1, hash: '01' },
          { prefix: 'b', count: 2, hash: '02' },
          { prefix: 'c', count: 1, hash: '03' },
        ],
        [
          { prefix: 'a', count: 1, hash: '01' },
          { prefix: 'b', count: 2, hash: '12' },
          { prefix: 'd', count: ENTRY_THRESHOLD, hash: '04' },
        ],
      ),
    ).toEqual([
      { prefix: 'b', server: 2, mirror: 2 },
      { prefix: 'c', server: 1, mirror: 0 },
      { prefix: 'd', server: 0, mirror: ENTRY_THRESHOLD },
    ]);
    expect(
      diffEntries(
        [
          { id: 'x', version: 1 },
          { id: 'y', version: 2 },
        ],
        [
          { id: 'y', version: 2 },
          { id: 'z', version: 1 },
        ],
      ),
    ).toEqual([
      { id: 'x', server: 1 },
      { id: 'z', mirror: 1 },
    ]);
  });
});
