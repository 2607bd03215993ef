import { randomUUID } from 'node:crypto';
import { digestNodeHolds, digestTree } from '@lx/contracts';
import type { MirrorResource } from '../src/api/lx-api.client';
import type { MirrorRow, MirrorStore } from '../src/store/mirror-store';

const row = (id: string, version: number, deleted = false): MirrorRow => ({
  id,
  version,
  deleted,
  body: JSON.stringify({ id, name: `v${version}` }),
});

/**
 * What every mirror database must do, the same for SQLite and PostgreSQL: run with a store on an empty database.
 * The digest it folds is compared with the contracts' own computation (digestTree) over the same entries.
 */
export function describeMirrorStore(name: string, open: () => Promise<MirrorStore>): void {
  describe(`${name} mirror store`, () => {
    let store: MirrorStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('applies a row only when newer; replaces and removes only over the version compared', async () => {
      const id = randomUUID();
      await store.transaction(async (tx) => {
        expect(await tx.apply('locations', row(id, 2))).toBe(true);
        expect(await tx.apply('locations', row(id, 2))).toBe(false);
        expect(await tx.apply('locations', row(id, 1))).toBe(false);
        expect(await tx.apply('locations', row(id, 3))).toBe(true);
      });
      // PostgreSQL keeps bodies as jsonb (its own spacing and key order): compared as JSON.
      const stored = await store.row('locations', id);
      expect({ ...stored, body: JSON.parse(stored!.body) as unknown }).toEqual({
        ...row(id, 3),
        body: { id, name: 'v3' },
      });
      // replace and removeIf: only over the version compared (compare-and-set), whatever that version.
      expect(await store.transaction((tx) => tx.replace('locations', row(id, 1), 2))).toBe(false);
      expect(await store.transaction((tx) => tx.replace('locations', row(id, 1), undefined))).toBe(false);
      expect(await store.transaction((tx) => tx.replace('locations', row(id, 1), 3))).toBe(true);
      expect((await store.row('locations', id))?.version).toBe(1);
      expect(await store.transaction((tx) => tx.removeIf('locations', id, 3))).toBe(false);
      expect(await store.transaction((tx) => tx.removeIf('locations', id, 1))).toBe(true);
      expect(await store.row('locations', id)).toBeUndefined();
      expect(await store.transaction((tx) => tx.replace('locations', row(id, 4), undefined))).toBe(true);
      expect((await store.row('locations', id))?.version).toBe(4);
    });

    it('rolls a failed transaction back, and keeps concurrent transactions apart', async () => {
      const id = randomUUID();
      await expect(
        store.transaction(async (tx) => {
          await tx.apply('locations', row(id, 1));
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await store.row('locations', id)).toBeUndefined();
      const ids = Array.from({ length: 20 }, () => randomUUID());
      const results = await Promise.allSettled(
        ids.map((each, index) =>
          store.transaction(async (tx) => {
            await tx.apply('locationGroups', row(each, 1));
            await new Promise((resolve) => setTimeout(resolve, 1));
            if (index % 2 === 1) throw new Error('odd');
          }),
        ),
      );
      expect(results.map((result) => result.status)).toEqual(ids.map((_, i) => (i % 2 ? 'rejected' : 'fulfilled')));
      for (const [index, each] of ids.entries()) {
        expect((await store.row('locationGroups', each)) === undefined).toBe(index % 2 === 1);
      }
    });

    it('keeps state, and claims a delivery id once', async () => {
      await store.transaction((tx) => tx.setState('k', 'v1'));
      await store.transaction((tx) => tx.setState('k', 'v2'));
      expect(await store.state('k')).toBe('v2');
      await store.transaction((tx) => tx.deleteState('k'));
      expect(await store.state('k')).toBeUndefined();
      const webhookId = randomUUID();
      expect(await store.transaction((tx) => tx.claimDelivery(webhookId))).toBe(true);
      expect(await store.transaction((tx) => tx.claimDelivery(webhookId))).toBe(false);
      expect(await store.forgetDeliveries(new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(1);
      expect(await store.transaction((tx) => tx.claimDelivery(webhookId))).toBe(true);
    });

    it('folds the digest of the live rows exactly as the contracts compute it, at every depth and prefix', async () => {
      const resource: MirrorResource = 'addressGroups';
      const live = Array.from({ length: 600 }, (_, i) => ({ id: randomUUID(), version: 1 + (i % 5) }));
      const deleted = Array.from({ length: 30 }, () => randomUUID());
      await store.transaction(async (tx) => {
        for (const entry of live) await tx.apply(resource, row(entry.id, entry.version));
        for (const id of deleted) await tx.apply(resource, row(id, 2, true));
      });
      expect(await store.count(resource)).toBe(600);
      for (const [prefix, depth] of [
        ['', 1],
        ['', 2],
        ['a', 2],
        ['0f', 1],
        ['3c', 3],
        ['ffff', 4],
      ] as const) {
        const expected = digestTree(live, prefix, depth);
        expect(await store.digestChildren(resource, prefix, depth)).toEqual(expected.children);
      }
      const prefix = digestTree(live, '', 2).children[0]!.prefix;
      const expectedEntries = live
        .filter((entry) => digestNodeHolds(prefix, entry.id))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(await store.entries(resource, prefix)).toEqual(expectedEntries);
    });
  });
}
