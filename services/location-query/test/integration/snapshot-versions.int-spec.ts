import { randomUUID } from 'node:crypto';
import { type AddressGroup, LOCATION_SNAPSHOT, type LocationGroup } from '@lx/contracts';
import { aNewLocation, publish, uniqueSuffix, waitFor } from '@lx/testing';
import { type LocationQueryHarness, startLocationQuery } from '../support/location-query-harness';

/** A time `seconds` after `base`, as an event timestamp or updatedAt. */
const at = (base: number, seconds: number) => new Date(base + seconds * 1000).toISOString();

/** The snapshot with versions=true (the export's includeVersions), through Kafka, PostgreSQL and HTTP. */
describe('the snapshot with versions', () => {
  let service: LocationQueryHarness;

  beforeAll(async () => {
    service = await startLocationQuery();
  }, 60_000);

  afterAll(() => service?.close());

  const versionOf = async (table: string, id: string) => {
    const { rows } = await service.db.query<{ version: number }>(`SELECT version FROM ${table} WHERE id = $1`, [id]);
    return rows[0]?.version;
  };
  const waitForVersion = (table: string, id: string, version: number) =>
    waitFor(`${table} ${id} at version ${version}`, async () => (await versionOf(table, id)) === version);

  /** The lines of a json snapshot, split into locations and groups by the announced counts. */
  async function snapshot(query: string) {
    const reply = await service.get(`${LOCATION_SNAPSHOT.path}?${query}`);
    expect(reply.status).toBe(200);
    const locations = Number(reply.headers[LOCATION_SNAPSHOT.totalCountHeader]);
    const locationGroups = Number(reply.headers[LOCATION_SNAPSHOT.locationGroupCountHeader] ?? 0);
    const lines = reply.text === '' ? [] : reply.text.split('\n');
    expect(lines.pop() ?? '').toBe('');
    return {
      locationLines: lines.slice(0, locations),
      locationGroupLines: lines.slice(locations, locations + locationGroups),
      addressGroupLines: lines.slice(locations + locationGroups),
    };
  }

  it('ends each location line with its version: the rest byte-equal to GET /locations/{id}, the version its ETag', async () => {
    const base = Date.parse('2150-01-01T00:00:00.000Z');
    const locationGroupId = randomUUID();
    // Unicode, quotes and escapes in the stored text: the line is composed from the text, never re-serialised.
    const first = aNewLocation({ locationGroupId, notes: 'Gate "B" – Zoë\n\\ ☎', customFields: { tier: 'gold' } });
    const second = aNewLocation({ locationGroupId });
    const changed = { ...second, notes: 'changed twice', updatedAt: at(base, 2) };
    await publish(service.bus, 'LOCATION_CREATED', first, 1);
    await publish(service.bus, 'LOCATION_CREATED', second, 1);
    await publish(service.bus, 'LOCATION_UPDATED', { ...second, notes: 'changed', updatedAt: at(base, 1) }, 2);
    await publish(service.bus, 'LOCATION_UPDATED', changed, 3);
    await waitForVersion('locations', first.id, 1);
    await waitForVersion('locations', second.id, 3);

    const { locationLines } = await snapshot(`versions=true&locationGroupId=${locationGroupId}`);
    const expected = [first, changed].sort((a, b) => a.id.localeCompare(b.id));
    expect(locationLines).toHaveLength(2);
    for (const [index, location] of expected.entries()) {
      const read = await service.get(`/locations/${location.id}`);
      expect(read.status).toBe(200);
      const version = Number(JSON.parse(String(read.headers['etag'])));
      expect(locationLines[index]).toBe(`${read.text.slice(0, -1)},"version":${version}}`);
      expect(JSON.parse(locationLines[index]!)).toEqual({ ...location, version });
    }
    expect(JSON.parse(locationLines[expected.indexOf(changed)]!)).toMatchObject({ version: 3 });

    // Without versions the lines stay the stored bodies, byte for byte.
    const plain = await snapshot(`locationGroupId=${locationGroupId}`);
    for (const [index, location] of expected.entries()) {
      expect(plain.locationLines[index]).toBe((await service.get(`/locations/${location.id}`)).text);
    }
  });

  it('ends each group line with its version, after deletedAt on a tombstone, in the same snapshot as the locations', async () => {
    const base = Date.parse('2160-01-01T00:00:00.000Z');
    const tag = `versions-${uniqueSuffix()}`;
    const live: LocationGroup = { id: randomUUID(), name: `${tag} live`, type: 'OTHER' };
    const renamed: LocationGroup = { ...live, name: `${tag} renamed` };
    const deleted: AddressGroup = { id: randomUUID(), name: `${tag} deleted`, type: 'MDU_COMPLEX' };
    const location = aNewLocation({ updatedAt: at(base, 1), locationGroupId: live.id });
    await publish(service.bus, 'LOCATION_GROUP_CREATED', live, 1, { timestamp: at(base, 1) });
    await publish(service.bus, 'LOCATION_GROUP_UPDATED', renamed, 2, { timestamp: at(base, 2) });
    await publish(service.bus, 'ADDRESS_GROUP_CREATED', deleted, 1, { timestamp: at(base, 1) });
    await publish(service.bus, 'ADDRESS_GROUP_UPDATED', { ...deleted, name: `${tag} again` }, 2, {
      timestamp: at(base, 2),
    });
    await publish(service.bus, 'ADDRESS_GROUP_DELETED', { ...deleted, name: `${tag} again` }, 3, {
      timestamp: at(base, 3),
    });
    await publish(service.bus, 'LOCATION_CREATED', location, 1);
    await waitForVersion('location_groups', live.id, 2);
    await waitForVersion('address_groups', deleted.id, 3);
    await waitForVersion('locations', location.id, 1);

    const since = encodeURIComponent(at(base, 0));
    const withVersions = await snapshot(`groups=true&versions=true&catchUp=true&modifiedSince=${since}`);
    expect(withVersions.locationLines).toEqual([
      `${(await service.get(`/locations/${location.id}`)).text.slice(0, -1)},"version":1}`,
    ]);
    expect(withVersions.locationGroupLines).toEqual([JSON.stringify({ ...renamed, version: 2 })]);
    expect(withVersions.addressGroupLines).toEqual([
      JSON.stringify({ ...deleted, name: `${tag} again`, deletedAt: at(base, 3), version: 3 }),
    ]);

    // The same selection without versions: the group lines of the list, unchanged.
    const plain = await snapshot(`groups=true&modifiedSince=${since}`);
    expect(plain.locationGroupLines).toEqual([JSON.stringify(renamed)]);
    expect(plain.addressGroupLines).toEqual([
      JSON.stringify({ ...deleted, name: `${tag} again`, deletedAt: at(base, 3) }),
    ]);
  });

  it.each([
    ['format=csv&versions=true', 'versions=true needs format=json: CSV records hold no version'],
    ['versions=catchUp', 'versions must be true or false'],
  ])('answers %s with 400 INVALID_FILTER naming versions', async (query, message) => {
    const reply = await service.get(`${LOCATION_SNAPSHOT.path}?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({
      code: 'INVALID_FILTER',
      details: { issues: [{ field: 'versions', message }] },
    });
  });
});
