import { randomUUID } from 'node:crypto';
import { type ChangeFeedPage, changeFeedPageSchema } from '@lx/contracts';
import {
  type ApiClient,
  ClientRegistry,
  conforming,
  type Group,
  type GroupCollection,
  OperatorApi,
  READ_SIDE_TIMEOUT_MS,
  readOk,
  type WrittenLocation,
} from './support/api';

type Change = ChangeFeedPage['changes'][number];

/**
 * The change feed through the public base URL, as an RSP keeping a copy uses it: the operator writes locations and
 * groups (several at once), the RSP pages the feed from where it stood before, and every write shows up exactly once,
 * each resource's changes in version order, the last one carrying what the operator's API answered.
 */
describe('the change feed, GET /locations/changes', () => {
  const run = randomUUID().slice(0, 8);
  const geography = { country: 'NZ', region: 'AUK', locality: 'Auckland', postalCode: '1010' };

  let registry: ClientRegistry;
  let operator: OperatorApi;
  let rsp: ApiClient;

  beforeAll(async () => {
    registry = new ClientRegistry(`e2e change-feed ${run}`);
    const [writer, reader] = await Promise.all([registry.operator(), registry.rsp()]);
    operator = new OperatorApi(writer);
    rsp = reader;
  }, 60_000);

  afterAll(async () => {
    await registry?.disableAll();
  });

  const page = async (after: string | undefined, limit: number): Promise<ChangeFeedPage> => {
    const query = new URLSearchParams({ limit: String(limit), ...(after === undefined ? {} : { after }) });
    const path = `/locations/changes?${query.toString()}`;
    return conforming(`GET ${path}`, changeFeedPageSchema, await readOk(rsp, path));
  };

  /** Where the feed ends now: paged from the oldest retained change to the end. */
  const head = async (): Promise<string> => {
    let cursor: string | undefined;
    for (;;) {
      const next = await page(cursor, 1000);
      cursor = next.next;
      if (!next.hasMore) return cursor;
    }
  };

  const resourceId = (change: Change) => (change.event.data as { id: string }).id;

  it("carries every location and group write once, each resource's changes in version order, as the API answered them", async () => {
    const start = await head();

    // Groups: two location groups, an address group, one renamed twice, one deleted.
    const [areaA, areaB, mdu, doomed] = await Promise.all([
      operator.createLocationGroup(`e2e change feed ${run} A`),
      operator.createLocationGroup(`e2e change feed ${run} B`),
      operator.createAddressGroup(`e2e change feed ${run} MDU`),
      operator.createLocationGroup(`e2e change feed ${run} doomed`),
    ]);
    const finalGroups = new Map<string, { collection: GroupCollection; group: Group | null; version: number }>();
    let renamed = await operator.patchGroup('location-groups', areaB, { name: `e2e change feed ${run} B2` });
    renamed = await operator.patchGroup('location-groups', areaB, { name: `e2e change feed ${run} B3` });
    finalGroups.set(areaB, { collection: 'location-groups', ...renamed });
    await operator.deleteGroup('location-groups', doomed);
    finalGroups.set(doomed, { collection: 'location-groups', group: null, version: 2 });

    // Locations: twelve at once, then each changed a few times, several locations at a time.
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        operator.createLocation({
          locationGroupId: n % 2 === 0 ? areaA : areaB,
          geography,
          address: { streetNumber: String(n + 1), streetName: 'Queen', streetType: 'STREET', addressGroupId: mdu },
          fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
        }),
      ),
    );
    const finalLocations = new Map<string, WrittenLocation>(created.map((write) => [write.location.id, write]));
    for (let round = 1; round <= 3; round += 1) {
      const writes = await Promise.all(
        created
          .filter((_, n) => n % round === 0)
          .map((write) => operator.patchLocation(write.location.id, { notes: `round ${round}` })),
      );
      for (const write of writes) finalLocations.set(write.location.id, write);
    }

    const ours = new Set([areaA, areaB, mdu, doomed, ...finalLocations.keys()]);
    const expectedVersions = new Map<string, number>([
      [areaA, 1],
      [mdu, 1],
      ...[...finalGroups].map(([id, final]) => [id, final.version] as [string, number]),
      ...[...finalLocations].map(([id, final]) => [id, final.version] as [string, number]),
    ]);
    const expectedCount = [...expectedVersions.values()].reduce((sum, version) => sum + version, 0);

    // The RSP pages from where the feed stood, twenty at a time (other tests' writes are in the feed too), until it
    // has seen every write.
    const read: Change[] = [];
    let cursor = start;
    const deadline = Date.now() + 2 * READ_SIDE_TIMEOUT_MS;
    while (read.filter((change) => ours.has(resourceId(change))).length < expectedCount && Date.now() < deadline) {
      const next = await page(cursor, 20);
      read.push(...next.changes);
      cursor = next.next;
      if (!next.hasMore) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const mine = read.filter((change) => ours.has(resourceId(change)));

    expect(new Set(mine.map((change) => change.event.id)).size).toBe(mine.length);
    const versionsOf = new Map<string, number[]>();
    for (const change of mine) {
      versionsOf.set(resourceId(change), [...(versionsOf.get(resourceId(change)) ?? []), change.event.version]);
    }
    const inOrder = (last: number) => Array.from({ length: last }, (_, n) => n + 1);
    expect(Object.fromEntries(versionsOf)).toEqual(
      Object.fromEntries([...expectedVersions].map(([id, last]) => [id, inOrder(last)])),
    );

    const lastOf = (id: string) => mine.filter((change) => resourceId(change) === id).at(-1)!.event;
    for (const [id, final] of finalLocations) {
      expect(lastOf(id)).toMatchObject({ type: final.version === 1 ? 'LOCATION_CREATED' : 'LOCATION_UPDATED' });
      expect(lastOf(id).data).toEqual(final.location);
    }
    expect(lastOf(areaB)).toMatchObject({ type: 'LOCATION_GROUP_UPDATED', data: finalGroups.get(areaB)!.group });
    expect(lastOf(doomed)).toMatchObject({ type: 'LOCATION_GROUP_DELETED', data: { id: doomed } });
    expect(lastOf(mdu)).toMatchObject({ type: 'ADDRESS_GROUP_CREATED', data: { id: mdu } });

    // Nothing more of ours after the end: the cursor stays where it is.
    const rest = await page(cursor, 1000);
    expect(rest.changes.filter((change) => ours.has(resourceId(change)))).toEqual([]);
  }, 120_000);

  it('answers 400 for a malformed cursor and 410 for one of another epoch, in the spec error body', async () => {
    const malformed = await rsp.get('/locations/changes?after=not-a-cursor');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({
      error: { code: 'INVALID_REQUEST', details: { issues: [expect.objectContaining({ field: 'after' })] } },
    });
    const foreign = Buffer.from(JSON.stringify({ v: 1, e: '0000000000000000', t: '1', s: '1' })).toString('base64url');
    const expired = await rsp.get(`/locations/changes?after=${foreign}`);
    expect({ status: expired.status, body: expired.body }).toMatchObject({
      status: 410,
      body: { error: { code: 'CHANGE_CURSOR_EXPIRED', details: { reason: 'epoch' } } },
    });
    expect(JSON.stringify(expired.body)).toContain('Catch up by an export (POST /locations/exports)');
  });
});
