import { randomUUID } from 'node:crypto';
import { errorBodySchema, type Location, validate } from '@lx/contracts';
import { awaitLocationGroup, ClientRegistry, describeReply, OperatorApi, readLocation, versionOf } from './support/api';
import {
  awaitCompleted,
  compareIds,
  type CompletedExport,
  downloadExport,
  parseJsonExport,
  requestExport,
} from './support/exports';

/**
 * JSON exports with includeVersions through the ingress: every location of the file is GET /locations/{id}'s body
 * with `"version"` as its last key, equal to that GET's ETag, and every group item ends with its version (after
 * deletedAt on a tombstone), so an RSP's copy loaded from the file can apply later changes by version alone.
 */

const unique = () => randomUUID().slice(0, 8);

/** A versioned export of the RSP: its status, the file's text and the parsed file. */
async function versionedExport(reader: Parameters<typeof requestExport>[0], body: Parameters<typeof requestExport>[1]) {
  const accepted = await requestExport(reader, body);
  const status: CompletedExport = await awaitCompleted(reader, accepted.requestId);
  const bytes = await downloadExport(status);
  const file = parseJsonExport(status, bytes);
  return { status, text: bytes.toString('utf8'), file };
}

describe('json exports with includeVersions through the ingress', () => {
  let registry: ClientRegistry;
  let operator: OperatorApi;

  beforeAll(async () => {
    registry = new ClientRegistry(`e2e export versions ${unique()}`);
    operator = new OperatorApi(await registry.operator());
  }, 60_000);

  afterAll(async () => {
    await registry?.disableAll();
  });

  it("carries each location's version (the ETag of GET /locations/{id}) and each group's, tombstones included", async () => {
    const reader = await registry.rsp();
    const run = unique();
    const area = { id: '', name: `e2e export versions ${run} area`, type: 'OTHER' };
    const doomed = { id: '', name: `e2e export versions ${run} doomed`, type: 'OTHER' };
    const mdu = { id: '', name: `e2e export versions ${run} MDU`, type: 'MDU_COMPLEX' };
    area.id = await operator.createLocationGroup(area.name);
    doomed.id = await operator.createLocationGroup(doomed.name);
    mdu.id = await operator.createAddressGroup(mdu.name);
    const renamedArea = await operator.patchGroup('location-groups', area.id, { name: `${area.name} renamed` });
    expect(renamedArea.version).toBe(2);
    const geography = { country: 'AU', region: 'TAS', locality: 'Hobart', postalCode: '7000' };
    const once = await operator.createLocation({
      locationGroupId: area.id,
      geography,
      notes: 'Quotes "and" – unicode Zoë ☎',
      address: { streetNumber: '3', streetName: 'Elizabeth', streetType: 'STREET', addressGroupId: mdu.id },
    });
    const thrice = await operator.createLocation({
      locationGroupId: area.id,
      geography,
      coordinates: { latitude: -42.88, longitude: 147.33 },
    });
    await operator.patchLocation(thrice.location.id, { notes: 'first change' });
    const last = await operator.patchLocation(thrice.location.id, { notes: 'second change' });
    expect(last.version).toBe(3);
    // The export request checks its filter against the read side; the rows in the file need no such wait.
    await awaitLocationGroup(reader, area.id);

    const full = await versionedExport(reader, {
      format: 'json',
      includeVersions: true,
      filters: { locationGroupId: area.id },
    });
    expect(full.status).toMatchObject({ includeVersions: true, totalCount: 2 });
    const locations = full.file.locations as (Location & { version?: number })[];
    expect(locations.map((location) => location.id)).toEqual([once.location.id, thrice.location.id].sort(compareIds));
    for (const location of locations) {
      const reply = await reader.get(`/locations/${location.id}`);
      if (reply.status !== 200) throw new Error(describeReply(`GET /locations/${location.id}`, reply));
      const etagVersion = versionOf(reply.headers.get('etag'));
      expect({ id: location.id, version: location.version }).toEqual({ id: location.id, version: etagVersion });
      expect(Object.keys(location).at(-1)).toBe('version');
      // Everything before the version byte for byte as GET serves it.
      expect(full.text).toContain(`${reply.text.slice(0, -1)},"version":${etagVersion}}`);
    }
    expect(locations.find((location) => location.id === thrice.location.id)?.version).toBe(3);
    expect(locations.find((location) => location.id === once.location.id)?.version).toBe(1);

    const ours = <T extends { id: string }>(groups: T[] | undefined, ...wanted: { id: string }[]) =>
      (groups ?? []).filter((group) => wanted.some((one) => one.id === group.id));
    expect(ours(full.file.locationGroups, area, doomed)).toEqual(
      [
        { ...renamedArea.group, version: 2 },
        { ...doomed, version: 1 },
      ].sort((a, b) => compareIds(a.id, b.id)),
    );
    expect(ours(full.file.addressGroups, mdu)).toEqual([{ ...mdu, version: 1 }]);
    // Every item of the file carries its version, not only this test's.
    for (const item of [...locations, ...(full.file.locationGroups ?? []), ...(full.file.addressGroups ?? [])]) {
      expect({ id: item.id, last: Object.keys(item).at(-1) }).toEqual({ id: item.id, last: 'version' });
    }

    // After the watermark: the group is deleted and a location changed; the incremental export has their versions.
    await operator.deleteGroup('location-groups', doomed.id);
    const changed = await operator.patchLocation(once.location.id, { notes: 'changed after the export' });
    const next = await versionedExport(reader, {
      format: 'json',
      includeVersions: true,
      modifiedSince: full.status.exportTimestamp,
      filters: { locationGroupId: area.id },
    });
    const tombstone = ours(next.file.locationGroups, doomed)[0] as Record<string, unknown> | undefined;
    expect(tombstone).toEqual({ ...doomed, deletedAt: expect.any(String) as unknown, version: 2 });
    expect(Object.keys(tombstone ?? {})).toEqual(['id', 'name', 'type', 'deletedAt', 'version']);
    expect(next.file.locations).toEqual([{ ...changed.location, version: changed.version }]);
    expect((await readLocation(reader, once.location.id)).version).toBe(changed.version);

    // Without the flag, the same selection has no version anywhere.
    const plain = await versionedExport(reader, { format: 'json', filters: { locationGroupId: area.id } });
    expect(plain.status).not.toHaveProperty('includeVersions');
    expect(plain.text).not.toContain('"version"');
  }, 120_000);

  it.each<[string, Record<string, unknown>]>([
    ['includeVersions with format csv', { format: 'csv', includeVersions: true }],
    ['an includeVersions that is not a boolean', { format: 'json', includeVersions: 'true' }],
  ])('refuses %s with 400 VALIDATION_ERROR naming includeVersions', async (_, body) => {
    const reader = await registry.rsp();
    const reply = await reader.post('/locations/exports', body);
    expect(reply.status).toBe(400);
    const error = validate(errorBodySchema, reply.body);
    if (!error.ok) throw new Error(describeReply('POST /locations/exports', reply));
    expect(error.value.error.code).toBe('VALIDATION_ERROR');
    const issues = (error.value.error.details?.['issues'] ?? []) as { field?: string }[];
    expect(issues.map((issue) => issue.field)).toEqual(['includeVersions']);
  });
});
