import { randomUUID } from 'node:crypto';
import {
  addressGroupListSchema,
  type ErrorBody,
  errorBodySchema,
  type Location,
  locationGroupListSchema,
  locationListSchema,
} from '@lx/contracts';
import {
  type ApiClient,
  awaitEqual,
  ClientRegistry,
  conforming,
  countsOf,
  describeReply,
  type GroupCollection,
  type HttpReply,
  OperatorApi,
  readLocation,
  readOk,
  statisticsCounts,
  type StatisticsCounts,
  type WrittenLocation,
} from './support/api';
import { compareIds } from './support/exports';

/** The error of a refusal, checked against the spec's `{ error: { code, message, details? } }`. */
function errorOf(what: string, reply: HttpReply): ErrorBody['error'] {
  return conforming(describeReply(what, reply), errorBodySchema, reply.body).error;
}

/**
 * The operator's journey through the public base URL: every write of the operator API (locations created, PATCHed,
 * PUT and retired; location groups and address groups created, PATCHed, PUT and deleted), each followed by what an
 * RSP sees of it (GET by id, the list of the test's group, the statistics of the test's group) within a bounded wait.
 * Every group is the test's own, named with the run's id, so lists and counts are asserted exactly.
 */
describe("the operator's changes, as an RSP sees them", () => {
  const run = randomUUID().slice(0, 8);
  const geography = { country: 'AU', region: 'WA', locality: 'Perth', postalCode: '6000' };

  let registry: ClientRegistry;
  let writer: ApiClient;
  let operator: OperatorApi;
  let rsp: ApiClient;

  beforeAll(async () => {
    registry = new ClientRegistry(`e2e operator-journey ${run}`);
    [writer, rsp] = await Promise.all([registry.operator(), registry.rsp()]);
    operator = new OperatorApi(writer);
  }, 60_000);

  afterAll(async () => {
    await registry?.disableAll();
  });

  /** What the RSP reads of a location: the written location at the written version. */
  const awaitServed = ({ location, version }: WrittenLocation) =>
    awaitEqual(`GET /locations/${location.id} at version ${version}`, () => readLocation(rsp, location.id), {
      location,
      version,
    });

  /** The RSP's list of a group's locations: exactly `writes` (their latest state), ordered by id. */
  const awaitGroupList = (groupId: string, writes: WrittenLocation[]) => {
    const locations: Location[] = writes.map((write) => write.location).sort((a, b) => compareIds(a.id, b.id));
    const path = `/locations?locationGroupId=${groupId}`;
    return awaitEqual(
      `GET ${path}`,
      async () => conforming(`GET ${path}`, locationListSchema, await readOk(rsp, path)),
      {
        locations,
        pagination: { limit: 100, offset: 0, total: locations.length },
      },
    );
  };

  /** The RSP's statistics filtered by the test's own group: exactly `expected`. */
  const awaitGroupStatistics = (groupId: string, expected: StatisticsCounts) =>
    awaitEqual(`statistics of group ${groupId}`, () => statisticsCounts(rsp, { locationGroupId: groupId }), expected);

  it('creates, PATCHes, PUTs and retires locations: each change reaches GET by id, the group list and the statistics', async () => {
    const [areaA, areaB] = await Promise.all([
      operator.createLocationGroup(`e2e operator journey ${run} area A`),
      operator.createLocationGroup(`e2e operator journey ${run} area B`),
    ]);
    const mdu = await operator.createAddressGroup(`e2e operator journey ${run} MDU`);

    // Create (POST): an MDU unit with address and coordinates, ACTIVE; a coordinates-only site, PLANNED.
    let unit = await operator.createLocation({
      locationGroupId: areaA,
      geography,
      address: {
        streetNumber: '10',
        streetName: 'Hay',
        streetType: 'STREET',
        subunitType: 'SUITE',
        subunitIdentifier: '4',
        addressGroupId: mdu,
      },
      coordinates: { latitude: -31.9523, longitude: 115.8613 },
      fiberAccessDetails: {
        circuitId: `CIR-${run}`,
        serviceability: { status: 'ACTIVE', availableDate: '2024-01-15' },
      },
      customFields: { floor: 4 },
    });
    let site = await operator.createLocation({
      locationGroupId: areaA,
      geography,
      coordinates: { latitude: -31.95, longitude: 115.86 },
      fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
    });
    expect({ unit: unit.version, site: site.version }).toEqual({ unit: 1, site: 1 });
    await awaitServed(unit);
    await awaitServed(site);
    await awaitGroupList(areaA, [unit, site]);
    await awaitGroupStatistics(
      areaA,
      countsOf(2, { ACTIVE: 1, PLANNED: 1 }, { coordinatesOnly: 1, addressAndCoordinates: 1, grouped: 2 }),
    );
    expect(await statisticsCounts(rsp, { addressGroupId: mdu })).toEqual(
      countsOf(1, { ACTIVE: 1 }, { addressAndCoordinates: 1, grouped: 1 }),
    );

    // PATCH (JSON Merge Patch): the site gets an address and moves to CONSTRUCTION; only those fields change.
    const patched = await operator.patchLocation(site.location.id, {
      address: { streetNumber: '12', streetName: 'Hay', streetType: 'STREET' },
      fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } },
      notes: 'trench dug',
    });
    expect(patched).toEqual({
      version: 2,
      location: {
        ...site.location,
        address: { streetNumber: '12', streetName: 'Hay', streetType: 'STREET' },
        fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } },
        notes: 'trench dug',
        updatedAt: expect.any(String) as unknown,
      },
    });
    site = patched;
    await awaitServed(site);
    await awaitGroupList(areaA, [unit, site]);
    await awaitGroupStatistics(
      areaA,
      countsOf(2, { ACTIVE: 1, CONSTRUCTION: 1 }, { addressAndCoordinates: 2, grouped: 2 }),
    );

    // PUT (replace): the unit moves to area B, leaves the MDU and loses its coordinates, custom fields and circuit.
    const replacement = {
      locationGroupId: areaB,
      geography,
      address: {
        streetNumber: '10',
        streetName: 'Hay',
        streetType: 'STREET',
        subunitType: 'SUITE',
        subunitIdentifier: '4',
      },
      fiberAccessDetails: { serviceability: { status: 'ACTIVE', availableDate: '2024-01-15' } },
    };
    const replaced = await operator.replaceLocation(unit.location.id, replacement);
    expect(replaced).toEqual({
      created: false,
      version: 2,
      location: {
        id: unit.location.id,
        createdAt: unit.location.createdAt,
        updatedAt: expect.any(String) as unknown,
        ...replacement,
      },
    });
    unit = replaced;
    await awaitServed(unit);
    await awaitGroupList(areaA, [site]);
    await awaitGroupList(areaB, [unit]);
    await awaitGroupStatistics(areaA, countsOf(1, { CONSTRUCTION: 1 }, { addressAndCoordinates: 1, grouped: 1 }));
    await awaitGroupStatistics(areaB, countsOf(1, { ACTIVE: 1 }, { addressOnly: 1, grouped: 1 }));
    expect(await statisticsCounts(rsp, { addressGroupId: mdu })).toEqual(countsOf(0, {}, {}));

    // PUT of a new id: the operator's own UUID, created (201).
    const ownId = randomUUID();
    const created = await operator.replaceLocation(ownId, {
      locationGroupId: areaB,
      geography,
      coordinates: { latitude: -31.96, longitude: 115.87 },
      fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
    });
    expect({ created: created.created, id: created.location.id, version: created.version }).toEqual({
      created: true,
      id: ownId,
      version: 1,
    });
    await awaitServed(created);
    await awaitGroupList(areaB, [unit, created]);
    await awaitGroupStatistics(
      areaB,
      countsOf(2, { ACTIVE: 1, PLANNED: 1 }, { addressOnly: 1, coordinatesOnly: 1, grouped: 2 }),
    );

    // Retire (serviceability RETIRED through the write API): the location stays readable, counted as RETIRED.
    const retired = await operator.patchLocation(site.location.id, {
      fiberAccessDetails: { serviceability: { status: 'RETIRED' } },
    });
    expect({ version: retired.version, serviceability: retired.location.fiberAccessDetails?.serviceability }).toEqual({
      version: 3,
      serviceability: { status: 'RETIRED' },
    });
    site = retired;
    await awaitServed(site);
    await awaitGroupList(areaA, [site]);
    await awaitGroupStatistics(areaA, countsOf(1, { RETIRED: 1 }, { addressAndCoordinates: 1, grouped: 1 }));
    expect(await statisticsCounts(rsp, { locationGroupId: areaA, status: 'ACTIVE,PLANNED,CONSTRUCTION' })).toEqual(
      countsOf(0, {}, {}),
    );

    // RETIRED is terminal: the write API refuses to revive it, and the RSP keeps seeing the retired location.
    const revive = await writer.request('PATCH', `/operator/locations/${site.location.id}`, {
      body: { fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect({ status: revive.status, error: errorOf('PATCH of a RETIRED location', revive) }).toEqual({
      status: 400,
      error: {
        code: 'INVALID_STATUS_TRANSITION',
        message: expect.any(String) as unknown,
        details: expect.objectContaining({ from: 'RETIRED', to: 'ACTIVE' }) as unknown,
      },
    });
    // A later write of the same location (same key, so the same partition) is the next version, and reaches the RSP
    // still RETIRED: the refused write recorded nothing before it.
    const marker = await operator.patchLocation(site.location.id, { notes: `retired, marker ${run}` });
    expect({ version: marker.version, location: marker.location }).toEqual({
      version: 4,
      location: { ...site.location, notes: `retired, marker ${run}`, updatedAt: expect.any(String) as unknown },
    });
    await awaitServed(marker);
    await awaitGroupStatistics(areaA, countsOf(1, { RETIRED: 1 }, { addressAndCoordinates: 1, grouped: 1 }));
  }, 120_000);

  describe.each<[GroupCollection, 'OTHER' | 'MDU_COMPLEX']>([
    ['location-groups', 'OTHER'],
    ['address-groups', 'MDU_COMPLEX'],
  ])('%s', (collection, type) => {
    const listKey = collection === 'location-groups' ? 'locationGroups' : 'addressGroups';
    /** The RSP's list at `path`, checked against the list contract of the collection. */
    const listAt = async (path: string): Promise<unknown> => {
      const body = await readOk(rsp, path);
      return collection === 'location-groups'
        ? conforming(`GET ${path}`, locationGroupListSchema, body)
        : conforming(`GET ${path}`, addressGroupListSchema, body);
    };

    /** The RSP's GET /{collection}/{id}: exactly `group`. */
    const awaitGroup = (group: { id: string; name: string; type: string }) =>
      awaitEqual(`GET /${collection}/${group.id}`, () => readOk(rsp, `/${collection}/${group.id}`), group);

    /** The RSP's list filtered by this test's name part: exactly `groups`, ordered by name. */
    const awaitListed = (tag: string, groups: { id: string; name: string; type: string }[]) => {
      const path = `/${collection}?name=${encodeURIComponent(tag)}`;
      return awaitEqual<unknown>(`GET ${path}`, () => listAt(path), {
        [listKey]: groups,
        pagination: { limit: 100, offset: 0, total: groups.length },
      });
    };

    it('creates, PATCHes, PUTs and deletes groups: each change reaches GET by id and the list', async () => {
      const tag = `e2e operator journey ${run} ${collection}`;
      const create = (name: string) =>
        collection === 'location-groups' ? operator.createLocationGroup(name) : operator.createAddressGroup(name);

      // Create (POST) two groups; the list by name shows both, ordered by name.
      const first = { id: await create(`${tag} 1`), name: `${tag} 1`, type };
      const second = { id: await create(`${tag} 2`), name: `${tag} 2`, type };
      await awaitGroup(first);
      await awaitGroup(second);
      await awaitListed(tag, [first, second]);

      // PATCH: renamed; the list follows the new name's order.
      const patched = await operator.patchGroup(collection, first.id, { name: `${tag} 3 patched` });
      const renamed = { ...first, name: `${tag} 3 patched` };
      expect(patched).toEqual({ group: renamed, version: 2 });
      await awaitGroup(renamed);
      await awaitListed(tag, [second, renamed]);

      // PUT onto an existing id replaces it (200); onto a new id creates it under the operator's id (201).
      const replaced = await operator.replaceGroup(collection, second.id, { name: `${tag} 0 replaced`, type });
      const secondReplaced = { ...second, name: `${tag} 0 replaced` };
      expect(replaced).toEqual({ created: false, group: secondReplaced, version: 2 });
      const ownId = randomUUID();
      const put = await operator.replaceGroup(collection, ownId, { name: `${tag} 4 own id`, type });
      const third = { id: ownId, name: `${tag} 4 own id`, type };
      expect(put).toEqual({ created: true, group: third, version: 1 });
      await awaitGroup(secondReplaced);
      await awaitGroup(third);
      await awaitListed(tag, [secondReplaced, renamed, third]);

      // A group a location references cannot be deleted (409), and stays readable.
      const member = await operator.createLocation({
        geography,
        ...(collection === 'location-groups'
          ? { locationGroupId: third.id, coordinates: { latitude: -31.97, longitude: 115.88 } }
          : { address: { streetNumber: '7', streetName: 'Murray', streetType: 'STREET', addressGroupId: third.id } }),
      });
      const refused = await writer.request('DELETE', `/operator/${collection}/${third.id}`);
      expect({
        status: refused.status,
        code: errorOf(`DELETE /operator/${collection}/${third.id}`, refused).code,
      }).toEqual({
        status: 409,
        code: 'CONFLICT',
      });
      expect(await readOk(rsp, `/${collection}/${third.id}`)).toEqual(third);

      // DELETE: the RSP gets 404 RESOURCE_NOT_FOUND for it and no longer finds it in the list.
      await operator.deleteGroup(collection, renamed.id);
      const resourceType = collection === 'location-groups' ? 'locationGroup' : 'addressGroup';
      await awaitEqual(
        `GET /${collection}/${renamed.id} after the delete`,
        async () => {
          const reply = await rsp.get(`/${collection}/${renamed.id}`);
          return { status: reply.status, body: reply.body };
        },
        {
          status: 404,
          body: {
            error: {
              code: 'RESOURCE_NOT_FOUND',
              message: expect.any(String) as unknown,
              details: { resourceType, resourceId: renamed.id },
            },
          },
        },
      );
      await awaitListed(tag, [secondReplaced, third]);

      // Once no location references it any more, the referenced group can be deleted too.
      await operator.patchLocation(
        member.location.id,
        collection === 'location-groups' ? { locationGroupId: null } : { address: { addressGroupId: null } },
      );
      await operator.deleteGroup(collection, third.id);
      await awaitListed(tag, [secondReplaced]);
      expect((await rsp.get(`/${collection}/${third.id}`)).status).toBe(404);
    }, 120_000);

    it('an RSP follows the changes by modifiedSince: the groups changed after it, by id, deleted ones as tombstones', async () => {
      const tag = `e2e operator journey ${run} ${collection} sync`;
      const create = async (name: string) => ({
        id: await (collection === 'location-groups'
          ? operator.createLocationGroup(name)
          : operator.createAddressGroup(name)),
        name,
        type,
      });
      const byId = <T extends { id: string }>(groups: T[]) => [...groups].sort((a, b) => compareIds(a.id, b.id));
      /** The RSP's list of this test's groups changed after `since` (and the page asked for). */
      const changedAfter = (since: string, page = '') =>
        listAt(`/${collection}?modifiedSince=${encodeURIComponent(since)}&name=${encodeURIComponent(tag)}${page}`);

      // A minute back on this machine's clock: clock skew cannot hide a change; the name keeps other tests out.
      const since = new Date(Date.now() - 60_000).toISOString();
      const first = await create(`${tag} 1`);
      const second = await create(`${tag} 2`);
      const third = await create(`${tag} 3`);
      const renamed = (await operator.patchGroup(collection, second.id, { name: `${tag} 2 renamed` })).group;
      await operator.deleteGroup(collection, third.id);

      const tombstone = { ...third, deletedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) };
      const changes = (await awaitEqual<unknown>(`the changes after ${since}`, () => changedAfter(since), {
        [listKey]: byId<{ id: string }>([first, renamed, tombstone]),
        pagination: { limit: 100, offset: 0, total: 3 },
      })) as Record<string, { id: string; deletedAt?: string }[]>;
      const deletedAt = changes[listKey]!.find((group) => group.id === third.id)!.deletedAt!;
      expect(Date.parse(deletedAt)).toBeGreaterThan(Date.parse(since));
      expect(Date.parse(deletedAt)).toBeLessThanOrEqual(Date.now() + 60_000);
      // The same order page by page; the total counts the tombstone.
      expect(await changedAfter(since, '&limit=2&offset=2')).toEqual({
        [listKey]: changes[listKey]!.slice(2),
        pagination: { limit: 2, offset: 2, total: 3 },
      });

      // The next round starts after the last change seen (exclusive): only what changed since.
      const renamedAgain = (await operator.patchGroup(collection, first.id, { name: `${tag} 1 again` })).group;
      await awaitEqual<unknown>(`the changes after ${deletedAt}`, () => changedAfter(deletedAt), {
        [listKey]: [renamedAgain],
        pagination: { limit: 100, offset: 0, total: 1 },
      });

      // Without modifiedSince nothing changed: live groups only, by name; the deleted one stays 404.
      expect(await listAt(`/${collection}?name=${encodeURIComponent(tag)}`)).toEqual({
        [listKey]: [renamedAgain, renamed],
        pagination: { limit: 100, offset: 0, total: 2 },
      });
      expect((await rsp.get(`/${collection}/${third.id}`)).status).toBe(404);

      const malformed = await rsp.get(`/${collection}?modifiedSince=${encodeURIComponent('2024-05-01 10:00')}`);
      expect({ status: malformed.status, error: errorOf(`GET /${collection}?modifiedSince=…`, malformed) }).toEqual({
        status: 400,
        error: {
          code: 'INVALID_FILTER',
          message: expect.stringContaining('modifiedSince') as unknown,
          details: { issues: [expect.objectContaining({ field: 'modifiedSince' }) as unknown] },
        },
      });
    }, 120_000);
  });
});
