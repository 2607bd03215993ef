import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  type AddressGroup,
  DIGEST,
  type DigestEntry,
  digestBucket,
  digestEntriesReplySchema,
  digestNodeHash,
  digestNodeReplySchema,
  type DigestResource,
  type EventType,
  digestTree,
  type Location,
  type LocationGroup,
  LOCATION_SNAPSHOT,
  TOPICS,
} from '@lx/contracts';
import { type ProjectedEvent, replayProjection } from '@lx/messaging';
import { AddRateLimitCounts1797984000000, dataSourceOptions, migrateSchema } from '@lx/platform';
import { aNewLocation, publish, requireEnv, uniqueSuffix, usePrivateSchema, waitUntilCaughtUp } from '@lx/testing';
import { loadLocationQueryConfig } from '../../src/config/location-query.config';
import { MIGRATIONS } from '../../src/database/migrations';
import { AddReadModelDigest1797292800000 } from '../../src/database/migrations/1797292800000-AddReadModelDigest';
import { LocationReadModelProjection } from '../../src/read-model/location-read-model.projection';
import { LIVE_TABLES } from '../../src/read-model/read-model-tables';
import { READ_MODEL_REPLAY } from '../../src/replay/replay-read-model';
import { type LocationQueryHarness, READ_MODEL_TOPICS, startLocationQuery } from '../support/location-query-harness';

const PATHS: Record<DigestResource, { digest: string; entries: string; read: string }> = {
  locations: {
    digest: DIGEST.resources.locations.path,
    entries: DIGEST.resources.locations.entriesPath,
    read: '/locations',
  },
  locationGroups: {
    digest: DIGEST.resources.locationGroups.path,
    entries: DIGEST.resources.locationGroups.entriesPath,
    read: '/location-groups',
  },
  addressGroups: {
    digest: DIGEST.resources.addressGroups.path,
    entries: DIGEST.resources.addressGroups.entriesPath,
    read: '/address-groups',
  },
};
const RESOURCES = Object.keys(PATHS) as DigestResource[];

/** Only what the digest covers of a reply: the snapshot's position and time are compared elsewhere. */
const nodePart = ({ position: _position, computedAt: _computedAt, ...rest }: Record<string, unknown>) => rest;

/**
 * The digest through the real projection and HTTP stack, compared with a digest computed independently: the ids of a
 * snapshot (GET /internal/locations/snapshot?groups=true), the versions of the read API (ETag), the pure hash module.
 */
describe('location-query digest', () => {
  let service: LocationQueryHarness;

  beforeAll(async () => {
    service = await startLocationQuery();
  }, 60_000);

  afterAll(() => service?.close());

  const caughtUp = () => waitUntilCaughtUp(service.bus, service.db, service.groupId, READ_MODEL_TOPICS);

  /** Every resource's (id, version) as an RSP would see it: the snapshot's ids, each read for its version. */
  async function mirror(): Promise<Record<DigestResource, DigestEntry[]>> {
    const reply = await service.get(`${LOCATION_SNAPSHOT.path}?groups=true`);
    expect(reply.status).toBe(200);
    const locations = Number(reply.headers[LOCATION_SNAPSHOT.totalCountHeader]);
    const locationGroups = Number(reply.headers[LOCATION_SNAPSHOT.locationGroupCountHeader]);
    const ids = reply.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    const withVersions = async (resource: DigestResource, of: string[]) =>
      Promise.all(
        of.map(async (id) => {
          const read = await service.get(`${PATHS[resource].read}/${id}`);
          expect(read.status).toBe(200);
          return { id, version: Number(String(read.headers['etag']).replace(/"/g, '')) };
        }),
      );
    return {
      locations: await withVersions('locations', ids.slice(0, locations)),
      locationGroups: await withVersions('locationGroups', ids.slice(locations, locations + locationGroups)),
      addressGroups: await withVersions('addressGroups', ids.slice(locations + locationGroups)),
    };
  }

  /**
   * The read model is shared by every test file publishing to these topics, so the comparison holds only when
   * nothing changed meanwhile: the mirror read before and after the digest replies must be the same.
   */
  async function whileQuiet<T>(read: (expected: Record<DigestResource, DigestEntry[]>) => Promise<T>): Promise<T> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await caughtUp();
      const before = await mirror();
      const result = await read(before);
      if (JSON.stringify(await mirror()) === JSON.stringify(before)) return result;
    }
    throw new Error('the read model kept changing');
  }

  async function expectDigestEquals(expected: Record<DigestResource, DigestEntry[]>, sample: string[]) {
    for (const resource of RESOURCES) {
      const entries = expected[resource];
      const prefixes = new Set<string>(['']);
      for (const id of sample) {
        const bucket = digestBucket(id);
        for (let length = 1; length <= DIGEST.maxPrefixLength; length += 1) prefixes.add(bucket.slice(0, length));
      }
      for (const prefix of prefixes) {
        for (let depth = 1; depth <= DIGEST.maxDepth && prefix.length + depth <= DIGEST.maxPrefixLength; depth += 1) {
          const reply = await service.get(`${PATHS[resource].digest}?prefix=${prefix.toUpperCase()}&depth=${depth}`);
          expect(reply.status).toBe(200);
          expect(digestNodeReplySchema.parse(reply.body)).toEqual(reply.body);
          expect(nodePart(reply.body)).toEqual({ resource, ...digestTree(entries, prefix, depth) });
        }
        const reply = await service.get(`${PATHS[resource].entries}?prefix=${prefix}`);
        expect(reply.status).toBe(200);
        expect(digestEntriesReplySchema.parse(reply.body)).toEqual(reply.body);
        const held = entries
          .filter((entry) => digestBucket(entry.id).startsWith(prefix))
          .sort((a, b) => (a.id < b.id ? -1 : 1));
        expect(nodePart(reply.body)).toEqual({ resource, ...digestNodeHash(entries, prefix), entries: held });
      }
    }
  }

  /** The stored nodes of a schema, summed over their slots: what a backfill, a replay and the projection agree on. */
  const storedNodes = async (schema?: string) =>
    (
      await service.db.query<{ resource: string; node: number; count: string; hash: string }>(
        `SELECT resource, node, sum(count)::text AS count, bit_xor(hash)::text AS hash
           FROM ${schema === undefined ? '' : `${schema}.`}digest_nodes
          GROUP BY 1, 2 HAVING sum(count) <> 0 OR bit_xor(hash) <> 0 ORDER BY 1, 2`,
      )
    ).rows;

  const locations: Location[] = [];
  const locationGroup: LocationGroup = { id: randomUUID(), name: `Digest ${uniqueSuffix()}`, type: 'OTHER' };
  const deletedGroup: LocationGroup = { id: randomUUID(), name: 'Deleted for good', type: 'OTHER' };
  const addressGroup: AddressGroup = { id: randomUUID(), name: 'Digest MDU', type: 'MDU_COMPLEX' };

  it('equals the digest computed from a snapshot after creates, updates, out-of-order and repeated deliveries, group deletions and re-creations', async () => {
    for (let index = 0; index < 40; index += 1) locations.push(aNewLocation({ notes: `digest ${index}` }));
    for (const location of locations) await publish(service.bus, 'LOCATION_CREATED', location, 1);
    for (const location of locations.slice(0, 10)) {
      await publish(service.bus, 'LOCATION_UPDATED', { ...location, notes: 'v3' }, 3);
      await publish(service.bus, 'LOCATION_UPDATED', { ...location, notes: 'v2, late' }, 2);
      await publish(service.bus, 'LOCATION_UPDATED', { ...location, notes: 'v3' }, 3);
    }
    await publish(service.bus, 'LOCATION_GROUP_CREATED', locationGroup, 1);
    await publish(service.bus, 'LOCATION_GROUP_UPDATED', { ...locationGroup, name: 'renamed' }, 2);
    await publish(service.bus, 'LOCATION_GROUP_DELETED', { ...locationGroup, name: 'renamed' }, 3);
    await publish(service.bus, 'LOCATION_GROUP_CREATED', { ...locationGroup, name: 'again' }, 4);
    await publish(service.bus, 'LOCATION_GROUP_CREATED', deletedGroup, 1);
    await publish(service.bus, 'LOCATION_GROUP_DELETED', deletedGroup, 2);
    await publish(service.bus, 'LOCATION_GROUP_CREATED', deletedGroup, 1);
    await publish(service.bus, 'ADDRESS_GROUP_CREATED', addressGroup, 1);

    await whileQuiet(async (expected) => {
      expect(expected.locations.length).toBeGreaterThanOrEqual(40);
      expect(expected.locationGroups.map((group) => group.id)).toContain(locationGroup.id);
      expect(expected.locationGroups.map((group) => group.id)).not.toContain(deletedGroup.id);
      expect(expected.locationGroups.find((group) => group.id === locationGroup.id)?.version).toBe(4);
      await expectDigestEquals(expected, [locations[0]!.id, locations[11]!.id, locationGroup.id, addressGroup.id]);
    });
  }, 120_000);

  it("answers the read model's stored position of the resource's topic and the time, from the same snapshot", async () => {
    await caughtUp();
    const reply = await service.get(`${DIGEST.resources.locations.path}?depth=2`);
    const { rows } = await service.db.query<{ partition: number; next_offset: string }>(
      `SELECT partition, next_offset::text FROM consumer_offsets WHERE group_id = $1 AND topic = $2`,
      [service.groupId, TOPICS.locationEvents.name],
    );
    expect(reply.body.position).toEqual({
      [TOPICS.locationEvents.name]: Object.fromEntries(rows.map((row) => [String(row.partition), row.next_offset])),
    });
    expect(Date.now() - Date.parse(reply.body.computedAt as string)).toBeLessThan(60_000);
    const groups = await service.get(DIGEST.resources.addressGroups.path);
    expect(Object.keys(groups.body.position as object)).toEqual([TOPICS.addressGroupEvents.name]);
  });

  it('is what the migration computes from the same rows (the backfill of an existing deployment)', async () => {
    await caughtUp();
    const index = MIGRATIONS.findIndex((migration) => migration.name === AddReadModelDigest1797292800000.name);
    const schema = `lq_digest_backfill_${uniqueSuffix()}`;
    const source = new DataSource(
      dataSourceOptions({
        config: { url: requireEnv('DATABASE_URL'), schema, poolSize: 2, migrateOnBoot: false },
        entities: [],
        migrations: MIGRATIONS.slice(0, index),
      }),
    );
    await source.initialize();
    try {
      await migrateSchema(source, schema);
      // The rows as the previous release left them: the same ids, versions and tombstones, without the digest.
      await service.db.query(
        `INSERT INTO ${schema}.locations (id, version, body, csv, location_group_id, address_group_id, updated_at)
         SELECT id, version, body, csv, location_group_id, address_group_id, updated_at FROM locations`,
      );
      for (const table of ['location_groups', 'address_groups']) {
        await service.db.query(
          `INSERT INTO ${schema}.${table} (id, version, name, type, deleted, changed_at, deleted_at)
           SELECT id, version, name, type, deleted, changed_at, deleted_at FROM ${table}`,
        );
      }
      const withDigest = new DataSource(
        dataSourceOptions({
          config: { url: requireEnv('DATABASE_URL'), schema, poolSize: 2, migrateOnBoot: false },
          entities: [],
          migrations: MIGRATIONS,
        }),
      );
      await withDigest.initialize();
      try {
        expect(await migrateSchema(withDigest, schema)).toEqual([
          AddReadModelDigest1797292800000.name,
          AddRateLimitCounts1797984000000.name,
        ]);
      } finally {
        await withDigest.destroy();
      }
      const [incremental, backfilled] = [await storedNodes(), await storedNodes(schema)];
      expect(backfilled).toEqual(incremental);
      expect(backfilled.length).toBeGreaterThan(0);
    } finally {
      await service.db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await source.destroy();
    }
  }, 60_000);

  it(
    'is the same after a replay rebuilt the read model from offset 0',
    async () => {
      await caughtUp();
      const before = await storedNodes();
      await replayProjection(loadLocationQueryConfig(service.env), READ_MODEL_REPLAY, { timeoutMs: 10 * 60_000 });
      await caughtUp();
      // The replay holds everything ever published to the shared topics; this schema's read model holds only what
      // was published since the harness started. Compare the digest of the ids this file wrote, node by node.
      await whileQuiet(async (expected) => {
        await expectDigestEquals(expected, [locations[0]!.id, locationGroup.id]);
      });
      const after = await storedNodes();
      expect(after.length).toBeGreaterThanOrEqual(before.length);
    },
    10 * 60_000,
  );

  describe('the HTTP edge', () => {
    it.each(RESOURCES)(
      'answers %s with 401 without a token and 403 FORBIDDEN without locations:read',
      async (resource) => {
        const writeOnly = await service.issuer.token({ scopes: ['locations:write'] });
        for (const path of [PATHS[resource].digest, PATHS[resource].entries]) {
          expect((await service.get(path, { token: null })).status).toBe(401);
          const forbidden = await service.get(path, { token: writeOnly });
          expect(forbidden.status).toBe(403);
          expect(forbidden.body.error.code).toBe('FORBIDDEN');
        }
      },
    );

    it.each([
      ['digest', '?prefix=xyz', 'prefix'],
      ['digest', '?prefix=01234567', 'prefix'],
      ['digest', '?depth=0', 'depth'],
      ['digest', '?depth=4', 'depth'],
      ['digest', '?depth=1.5', 'depth'],
      ['digest', '?prefix=abcdef&depth=3', 'depth'],
      ['digest', '?prefix=a&prefix=b', 'prefix'],
      ['digest', '?limit=10', 'limit'],
      ['entries', '?prefix=012345678', 'prefix'],
      ['entries', '?prefix=g', 'prefix'],
      ['entries', '?depth=1', 'depth'],
    ] as const)('answers GET …/%s%s with 400 INVALID_FILTER naming %s', async (kind, query, field) => {
      for (const resource of RESOURCES) {
        const reply = await service.get(`${PATHS[resource][kind]}${query}`);
        expect(reply.status).toBe(400);
        expect(reply.body.error.code).toBe('INVALID_FILTER');
        expect(reply.body.error.details.issues.map((issue: { field: string }) => issue.field)).toContain(field);
      }
    });

    it('answers an empty node with count 0, the empty hash and no children or entries', async () => {
      await caughtUp();
      // A prefix no resource of this file's schema is likely to hold: 8 digits of a fresh bucket.
      const prefix = digestBucket(randomUUID()).slice(0, 7);
      const node = await service.get(`${PATHS.addressGroups.digest}?prefix=${prefix}`);
      expect(nodePart(node.body)).toEqual({
        resource: 'addressGroups',
        prefix,
        count: 0,
        hash: '0000000000000000',
        children: [],
      });
      const entries = await service.get(`${PATHS.addressGroups.entries}?prefix=${prefix}`);
      expect(entries.body).toMatchObject({ count: 0, hash: '0000000000000000', entries: [] });
    });

    // Last: rows written straight into the tables (the projection would take long for 10,001) stay in the schema.
    it('answers 400 DIGEST_NODE_TOO_LARGE for the entries of a node of more than 10,000, and lists a deeper one', async () => {
      await service.db.query(
        `INSERT INTO locations (id, version, body, csv, updated_at)
         SELECT gen_random_uuid(), 1, '{}'::json, '', now() FROM generate_series(1, ${DIGEST.maxEntries + 1})`,
      );
      await service.db.query(`DELETE FROM digest_nodes WHERE resource = 'locations'`);
      await service.db.query(
        `INSERT INTO digest_nodes (resource, node, slot, count, hash)
         SELECT 'locations', digest_key >> 20, 0, count(*), bit_xor(digest_hash) FROM locations GROUP BY 2`,
      );
      const { rows } = await service.db.query<{ count: string }>(`SELECT count(*)::text AS count FROM locations`);
      const reply = await service.get(PATHS.locations.entries);
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({
        code: 'DIGEST_NODE_TOO_LARGE',
        details: { count: Number(rows[0]!.count), limit: DIGEST.maxEntries },
      });
      expect(reply.body.error.message).toMatch(/longer prefix/);
      const deeper = await service.get(`${PATHS.locations.entries}?prefix=0a`);
      expect(deeper.status).toBe(200);
      expect(deeper.body.entries.length).toBe(deeper.body.count);
    });
  });
});

/** Two transactions of the projection writing the same ids at once (two members during a rebalance). */
describe('the digest under concurrent writers', () => {
  const { connect, db, schema } = usePrivateSchema('lq_digest_concurrent', MIGRATIONS);
  const projection = new LocationReadModelProjection(LIVE_TABLES);
  const event = (location: Location, version: number, partition: number): ProjectedEvent => ({
    event: {
      id: randomUUID(),
      type: version === 1 ? 'LOCATION_CREATED' : 'LOCATION_UPDATED',
      timestamp: new Date().toISOString(),
      source: 'it-digest',
      data: location,
    },
    version,
    topic: TOPICS.locationEvents.name,
    partition,
    offset: '0',
  });

  it('counts each id once, with the version its row ends with, whatever the order the writers commit in', async () => {
    const shared = Array.from({ length: 50 }, () => aNewLocation());
    const [first, second] = [connect(), connect()];
    await Promise.all([first.connect(), second.connect()]);
    try {
      await first.query('BEGIN');
      await second.query('BEGIN');
      // The first writer creates them at version 2 (reversed, to try both lock orders), the second at 1 and 3.
      await projection.apply(
        first,
        [...shared].reverse().map((location) => event(location, 2, 0)),
      );
      const late = projection.apply(second, [
        ...shared.slice(0, 25).map((location) => event(location, 1, 1)),
        ...shared.slice(25).map((location) => event(location, 3, 1)),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.query('COMMIT');
      await late;
      await second.query('COMMIT');
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
    const { rows } = await db.query<{ id: string; version: number }>(`SELECT id::text, version FROM locations`);
    expect(rows.filter((row) => row.version === 3)).toHaveLength(25);
    const expected = digestTree(rows, '', 3);
    const stored = await db.query<{ node: number; count: string; hash: string }>(
      `SELECT node, sum(count)::text AS count, bit_xor(hash)::text AS hash FROM digest_nodes
        WHERE resource = 'locations' GROUP BY node HAVING sum(count) > 0 ORDER BY node`,
    );
    expect(
      stored.rows.map((row) => ({
        prefix: row.node.toString(16).padStart(3, '0'),
        count: Number(row.count),
        hash: (BigInt(row.hash) & 0xffffffffffffffffn).toString(16).padStart(16, '0'),
      })),
    ).toEqual(expected.children);
    expect(expected.count).toBe(50);
  }, 60_000);

  it('counts a group once while it lives, whatever the order concurrent writers of its creation and deletion commit in', async () => {
    const groups = Array.from({ length: 20 }, (_, n) => ({
      id: randomUUID(),
      name: `group ${n}`,
      type: 'OTHER' as const,
    }));
    const groupEvent = (group: LocationGroup, type: EventType, version: number): ProjectedEvent => ({
      event: {
        id: randomUUID(),
        type,
        timestamp: new Date().toISOString(),
        source: 'it-digest',
        data: group,
      } as ProjectedEvent['event'],
      version,
      topic: TOPICS.locationGroupEvents.name,
      partition: 2,
      offset: '0',
    });
    const [first, second] = [connect(), connect()];
    await Promise.all([first.connect(), second.connect()]);
    try {
      await first.query('BEGIN');
      await second.query('BEGIN');
      // The first writer creates them; the second deletes the first ten (version 2) and re-creates the last ten at
      // version 3 (a creation after a deletion it never saw).
      await projection.apply(
        first,
        groups.map((group) => groupEvent(group, 'LOCATION_GROUP_CREATED', 1)),
      );
      const late = projection.apply(second, [
        ...groups.slice(0, 10).map((group) => groupEvent(group, 'LOCATION_GROUP_DELETED', 2)),
        ...groups.slice(10).map((group) => groupEvent({ ...group, name: 'again' }, 'LOCATION_GROUP_CREATED', 3)),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.query('COMMIT');
      await late;
      await second.query('COMMIT');
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
    const { rows } = await db.query<{ id: string; version: number }>(
      `SELECT id::text, version FROM location_groups WHERE NOT deleted AND id = ANY($1::uuid[])`,
      [groups.map((group) => group.id)],
    );
    expect(rows.map((row) => row.version)).toEqual(Array(10).fill(3));
    const stored = await db.query<{ count: string; hash: string }>(
      `SELECT sum(count)::text AS count, coalesce(bit_xor(hash), 0)::text AS hash FROM digest_nodes
        WHERE resource = 'locationGroups'`,
    );
    expect({
      count: Number(stored.rows[0]!.count),
      hash: (BigInt(stored.rows[0]!.hash) & 0xffffffffffffffffn).toString(16).padStart(16, '0'),
    }).toEqual({ count: 10, hash: digestNodeHash(rows).hash });
  }, 60_000);
  it("keeps the digest of the previous release's writes (no digest of their own) while its pods drain", async () => {
    const [mine, theirs] = [aNewLocation(), aNewLocation()];
    const group = { id: randomUUID(), name: 'old writer', type: 'OTHER' };
    // The previous release's upserts, as it wrote them: without the digest.
    const upsertLocation = (location: Location, version: number) =>
      db.query(
        `INSERT INTO locations AS l (id, version, body, csv, updated_at) VALUES ($1, $2, $3, '', now())
         ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, body = EXCLUDED.body WHERE l.version < EXCLUDED.version`,
        [location.id, version, JSON.stringify(location)],
      );
    const upsertGroup = (version: number, deleted: boolean) =>
      db.query(
        `INSERT INTO location_groups AS g (id, version, name, type, deleted, changed_at) VALUES ($1, $2, $3, 'OTHER', $4, now())
         ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, deleted = EXCLUDED.deleted, changed_at = now()
         WHERE g.version < EXCLUDED.version`,
        [group.id, version, group.name, deleted],
      );
    await upsertLocation(theirs, 1);
    await upsertLocation(theirs, 3);
    await upsertLocation(theirs, 2);
    await upsertGroup(1, false);
    await upsertGroup(2, true);
    await upsertGroup(3, false);
    await upsertGroup(4, true);
    // And this release's projection on the same ids, in the same tables: counted once.
    const client = connect();
    await client.connect();
    try {
      await client.query('BEGIN');
      await projection.apply(client, [event(mine, 1, 3), event({ ...theirs, notes: 'v4' }, 4, 3)]);
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    for (const [resource, table, live] of [
      ['locations', 'locations', 'true'],
      ['locationGroups', 'location_groups', 'NOT deleted'],
    ] as const) {
      const { rows } = await db.query<{ id: string; version: number }>(
        `SELECT id::text, version FROM ${table} WHERE ${live}`,
      );
      const stored = await db.query<{ count: string; hash: string }>(
        `SELECT coalesce(sum(count), 0)::text AS count, coalesce(bit_xor(hash), 0)::text AS hash FROM digest_nodes
          WHERE resource = $1`,
        [resource],
      );
      expect({
        count: Number(stored.rows[0]!.count),
        hash: (BigInt(stored.rows[0]!.hash) & 0xffffffffffffffffn).toString(16).padStart(16, '0'),
      }).toEqual({ count: rows.length, hash: digestNodeHash(rows).hash });
    }
    const { rows } = await db.query<{ version: number }>(`SELECT version FROM locations WHERE id = $1`, [theirs.id]);
    expect(rows[0]?.version).toBe(4);
  }, 60_000);

  it('counts a row written from a session whose search_path is elsewhere (psql, a COPY into <schema>.locations)', async () => {
    const location = aNewLocation();
    const before = await db.query<{ count: string }>(
      `SELECT coalesce(sum(count), 0)::text AS count FROM digest_nodes WHERE resource = 'locations'`,
    );
    const outsider = new Client({ connectionString: requireEnv('DATABASE_URL') });
    await outsider.connect();
    try {
      await outsider.query(
        `INSERT INTO ${schema}.locations (id, version, body, csv, updated_at) VALUES ($1, 1, $2, '', now())`,
        [location.id, JSON.stringify(location)],
      );
    } finally {
      await outsider.end();
    }
    const after = await db.query<{ count: string }>(
      `SELECT coalesce(sum(count), 0)::text AS count FROM digest_nodes WHERE resource = 'locations'`,
    );
    expect(Number(after.rows[0]!.count)).toBe(Number(before.rows[0]!.count) + 1);
  }, 60_000);
});
