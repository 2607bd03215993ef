import { randomUUID } from 'node:crypto';
import {
  type DigestEntriesReply,
  digestBucket,
  digestEntriesReplySchema,
  digestNodeHash,
  type DigestNodeReply,
  digestNodeReplySchema,
  xorHex,
} from '@lx/contracts';
import { type ApiClient, awaitEqual, ClientRegistry, conforming, OperatorApi, readOk } from './support/api';

/**
 * The digest through the public base URL: the operator writes a few locations, and the RSP finds each at its version
 * in the digest, with node hashes as the hash module computes them from the entries.
 */
describe('the digest, GET /locations/digest and /locations/digest/entries', () => {
  const run = randomUUID().slice(0, 8);
  let registry: ClientRegistry;
  let operator: OperatorApi;
  let rsp: ApiClient;

  beforeAll(async () => {
    registry = new ClientRegistry(`e2e digest ${run}`);
    const [writer, reader] = await Promise.all([registry.operator(), registry.rsp()]);
    operator = new OperatorApi(writer);
    rsp = reader;
  }, 60_000);

  afterAll(async () => {
    await registry?.disableAll();
  });

  const node = async (query: string): Promise<DigestNodeReply> =>
    conforming(`GET /locations/digest${query}`, digestNodeReplySchema, await readOk(rsp, `/locations/digest${query}`));
  const entries = async (prefix: string): Promise<DigestEntriesReply> =>
    conforming(
      `GET /locations/digest/entries?prefix=${prefix}`,
      digestEntriesReplySchema,
      await readOk(rsp, `/locations/digest/entries?prefix=${prefix}`),
    );

  it('holds each written location at its version, in nodes whose hashes the hash module computes from the entries', async () => {
    const geography = { country: 'NZ', region: 'WGN', locality: 'Wellington', postalCode: '6011' };
    const written = await Promise.all(
      [1, 2, 3].map((n) =>
        operator.createLocation({
          geography,
          notes: `e2e digest ${run} ${n}`,
          coordinates: { latitude: -41, longitude: 174 },
        }),
      ),
    );
    const changed = await operator.patchLocation(written[0]!.location.id, { notes: `e2e digest ${run} changed` });
    const versions = new Map(written.map((write) => [write.location.id, write.version]));
    versions.set(changed.location.id, changed.version);

    for (const [id, version] of versions) {
      const prefix = digestBucket(id).slice(0, 8);
      // The read side applies the writes shortly after: wait until this node lists the location at its version.
      await awaitEqual(
        `${id} in the digest at version ${version}`,
        async () => (await entries(prefix)).entries.find((entry) => entry.id === id)?.version,
        version,
      );
      // The node as entries and as a child three levels below, read until both come from the same position.
      let leaf = await entries(prefix.toUpperCase());
      let parent = await node(`?prefix=${prefix.slice(0, 5)}&depth=3`);
      for (
        let attempt = 0;
        attempt < 5 && JSON.stringify(leaf.position) !== JSON.stringify(parent.position);
        attempt++
      ) {
        leaf = await entries(prefix);
        parent = await node(`?prefix=${prefix.slice(0, 5)}&depth=3`);
      }
      expect(leaf.prefix).toBe(prefix);
      expect({ count: leaf.count, hash: leaf.hash }).toEqual({
        count: leaf.entries.length,
        hash: digestNodeHash(leaf.entries, prefix).hash,
      });
      expect(parent.children.find((each) => each.prefix === prefix)).toEqual({
        prefix,
        count: leaf.count,
        hash: leaf.hash,
      });
      const root = await node('?depth=1');
      expect(root.children.reduce((sum, each) => sum + each.count, 0)).toBe(root.count);
      expect(root.children.reduce((hash, each) => xorHex(hash, each.hash), '0000000000000000')).toBe(root.hash);
      expect(Object.keys(root.position)).toEqual(['location.events.v1']);
    }
  }, 120_000);

  it('answers 400 INVALID_FILTER naming the parameter through the ingress', async () => {
    const bad = await rsp.get<{ error: { code: string; details: { issues: { field: string }[] } } }>(
      '/locations/digest?prefix=xyz',
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_FILTER');
    expect(bad.body.error.details.issues.map((issue) => issue.field)).toEqual(['prefix']);
  });
});
