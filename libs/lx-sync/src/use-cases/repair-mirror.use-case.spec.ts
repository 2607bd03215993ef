import { randomUUID } from 'node:crypto';
import type { LxApiClient, MirrorResource, VersionedResource } from '../api/lx-api.client';
import type { MirrorStore } from '../store/mirror-store';
import { useSqliteMirror } from '../../test/sqlite-mirror';
import { RepairMirror } from './repair-mirror.use-case';

/** The API's single reads, answering from a list per id (the last answer repeats): the read model catching up. */
class ReadSide {
  readonly answers = new Map<string, (VersionedResource | undefined)[]>();
  getResource(_resource: MirrorResource, id: string) {
    const queue = this.answers.get(id) ?? [undefined];
    return Promise.resolve(queue.length > 1 ? queue.shift() : queue[0]);
  }
}

describe('RepairMirror', () => {
  const mirror = useSqliteMirror();
  let store: MirrorStore;
  beforeAll(() => {
    store = mirror();
  });
  const at = (id: string, version: number) => ({ body: { id, version }, version });
  const hold = (id: string, version: number) =>
    store.transaction((tx) => tx.replace('locations', { id, version, deleted: false, body: '{}' }, undefined));

  it('leaves a row that changed while the API was asked (a webhook applied meanwhile) for the next verify', async () => {
    const id = randomUUID();
    await hold(id, 5); // ahead of the API, which answers 3 twice; meanwhile a webhook brings 6
    const side = new ReadSide();
    side.answers.set(id, [at(id, 3), at(id, 3)]);
    const asked = side.getResource.bind(side);
    let calls = 0;
    side.getResource = async (resource, wanted) => {
      if (++calls === 2) {
        await store.transaction((tx) => tx.apply('locations', { id, version: 6, deleted: false, body: '{"v":6}' }));
      }
      return asked(resource, wanted);
    };
    const result = await new RepairMirror(side as unknown as LxApiClient, store).execute(
      [{ resource: 'locations', id }],
      { confirmDelayMs: 1 },
    );
    expect(result).toEqual({ written: 0, removed: 0 });
    expect((await store.row('locations', id))?.version).toBe(6);
  });

  it("writes the API's state, removes what it lacks, and asks again before going back to a lower version", async () => {
    const [missing, extra, edited, ahead] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await hold(extra, 1);
    await hold(edited, 9);
    await hold(ahead, 4);
    const side = new ReadSide();
    side.answers.set(missing, [at(missing, 2)]);
    side.answers.set(edited, [at(edited, 3)]); // still 3 when asked again: the mirror's 9 is wrong
    side.answers.set(ahead, [at(ahead, 3), at(ahead, 4)]); // the read model caught up with the mirror's webhook
    const repair = new RepairMirror(side as unknown as LxApiClient, store);
    const result = await repair.execute(
      [missing, extra, edited, ahead].map((id) => ({ resource: 'locations' as const, id })),
      { confirmDelayMs: 1 },
    );
    expect(result).toEqual({ written: 3, removed: 1 });
    expect((await store.row('locations', missing))?.version).toBe(2);
    expect(await store.row('locations', extra)).toBeUndefined();
    expect((await store.row('locations', edited))?.version).toBe(3);
    expect((await store.row('locations', ahead))?.version).toBe(4);
  });
});
