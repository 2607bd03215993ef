import { randomUUID } from 'node:crypto';
import {
  dlqTopic,
  KAFKA_HEADERS,
  type Location,
  LOCATION_SNAPSHOT,
  locationCsvRecord,
  locationListSchema,
  locationSchema,
  TOPICS,
  validate,
} from '@lx/contracts';
import { aNewLocation, publish, testKafkaClient, testTopic, uniqueSuffix, waitFor } from '@lx/testing';
import { type LocationQueryHarness, startLocationQuery } from '../support/location-query-harness';

/** The read model fed by events published straight to the file's topics, through the real HTTP stack. */
describe('location-query read model', () => {
  let service: LocationQueryHarness;

  beforeAll(async () => {
    service = await startLocationQuery();
  }, 60_000);

  afterAll(() => service?.close());

  const versionOf = async (id: string) => {
    const { rows } = await service.db.query<{ version: number }>(`SELECT version FROM locations WHERE id = $1`, [id]);
    return rows[0]?.version;
  };
  const waitForVersion = (id: string, version: number) =>
    waitFor(`location ${id} at version ${version}`, async () => (await versionOf(id)) === version);
  const groupVersionOf = async (table: string, id: string) => {
    const { rows } = await service.db.query<{ version: number }>(`SELECT version FROM ${table} WHERE id = $1`, [id]);
    return rows[0]?.version;
  };

  describe('GET /locations/{id}', () => {
    it('answers the Location of the newest event exactly, with its version as ETag', async () => {
      const location = aNewLocation({
        notes: 'Gate code 12',
        locationGroupId: randomUUID(),
        fiberAccessDetails: { serviceability: { status: 'PLANNED', availableDate: '2025-01-31' } },
        customFields: { tier: 'gold', floors: 3, tags: ['a', 1, true] },
      });
      await publish(service.bus, 'LOCATION_CREATED', location, 1);
      await waitForVersion(location.id, 1);

      const reply = await service.get(`/locations/${location.id.toUpperCase()}`);
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(reply.headers['etag']).toBe('"1"');
      expect(reply.body).toEqual(location);
      expect(validate(locationSchema, reply.body).ok).toBe(true);
      // The spec's field order, and absent optional objects left out rather than null.
      expect(Object.keys(reply.body)).toEqual([
        'id',
        'createdAt',
        'updatedAt',
        'notes',
        'locationGroupId',
        'geography',
        'address',
        'coordinates',
        'fiberAccessDetails',
        'customFields',
      ]);
      expect(reply.text).not.toContain('null');
    });

    it('answers 304 without a body to If-None-Match with the current ETag, and 200 after a change', async () => {
      const location = aNewLocation();
      await publish(service.bus, 'LOCATION_CREATED', location, 1);
      await waitForVersion(location.id, 1);

      const notModified = await service.get(`/locations/${location.id}`, { headers: { 'if-none-match': '"1"' } });
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect(notModified.headers['etag']).toBe('"1"');

      const updated = { ...location, notes: 'changed', updatedAt: new Date(Date.now() + 1000).toISOString() };
      await publish(service.bus, 'LOCATION_UPDATED', updated, 2, { modifiedFields: { notes: 'changed' } });
      await waitForVersion(location.id, 2);
      const changed = await service.get(`/locations/${location.id}`, { headers: { 'if-none-match': 'W/"1"' } });
      expect(changed.status).toBe(200);
      expect(changed.headers['etag']).toBe('"2"');
      expect(changed.body).toEqual(updated);
    });

    it('answers 404 RESOURCE_NOT_FOUND naming the location, and 400 INVALID_REQUEST for a malformed id', async () => {
      const id = randomUUID();
      const missing = await service.get(`/locations/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({
        error: {
          code: 'RESOURCE_NOT_FOUND',
          message: `location ${id} was not found`,
          details: { resourceType: 'location', resourceId: id },
        },
      });
      const malformed = await service.get('/locations/not-a-uuid');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('INVALID_REQUEST');
    });

    it('answers 401 without a token and 403 FORBIDDEN to a token without locations:read', async () => {
      const id = randomUUID();
      expect((await service.get(`/locations/${id}`, { token: null })).status).toBe(401);
      const writeOnly = await service.issuer.token({ scopes: ['locations:write'] });
      const forbidden = await service.get(`/locations/${id}`, { token: writeOnly });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error.code).toBe('FORBIDDEN');
    });
  });

  describe('projection rules', () => {
    it('given the same event twice, then one effect', async () => {
      const location = aNewLocation();
      await publish(service.bus, 'LOCATION_CREATED', location, 1);
      const second = { ...location, notes: 'v2' };
      await publish(service.bus, 'LOCATION_UPDATED', second, 2);
      await publish(service.bus, 'LOCATION_UPDATED', second, 2);
      await publish(service.bus, 'LOCATION_CREATED', location, 1);
      const marker = aNewLocation();
      await publish(service.bus, 'LOCATION_CREATED', marker, 1);
      await waitForVersion(marker.id, 1);
      await waitForVersion(location.id, 2);

      const { rows } = await service.db.query(`SELECT count(*)::int AS n FROM locations WHERE id = $1`, [location.id]);
      expect(rows[0].n).toBe(1);
      expect((await service.get(`/locations/${location.id}`)).body).toEqual(second);
    });

    it('given version n+2 before n+1, then n+2 stays', async () => {
      const location = aNewLocation();
      const third = { ...location, notes: 'third' };
      const second = { ...location, notes: 'second' };
      await publish(service.bus, 'LOCATION_CREATED', location, 1);
      await publish(service.bus, 'LOCATION_UPDATED', third, 3);
      await publish(service.bus, 'LOCATION_UPDATED', second, 2);
      const marker = aNewLocation();
      await publish(service.bus, 'LOCATION_CREATED', marker, 1);
      await waitForVersion(marker.id, 1);

      const reply = await service.get(`/locations/${location.id}`);
      expect(reply.headers['etag']).toBe('"3"');
      expect(reply.body).toEqual(third);
    });

    it('given an invalid message, then it goes to the dead-letter topic with its bytes and the reason, and the partition moves on', async () => {
      const key = randomUUID();
      const bytes = JSON.stringify({ id: randomUUID(), type: 'LOCATION_CREATED', data: { id: key } });
      // Same key as the valid event after it: same partition, so the valid one is applied only if the bad one passed.
      await service.bus.publish(TOPICS.locationEvents.name, [
        { key, value: bytes, headers: { [KAFKA_HEADERS.aggregateVersion]: '1' } },
      ]);
      await publish(service.bus, 'LOCATION_CREATED', aNewLocation({ id: key }), 1);
      await waitForVersion(key, 1);

      // The dead-letter topic is created with its first letter.
      const kafka = testKafkaClient(`it-dlq-${uniqueSuffix()}`);
      const consumer = kafka.consumer({ groupId: testTopic(`it-dlq-reader-${uniqueSuffix()}`) });
      const letters: { key: string; value: string; headers: Record<string, string> }[] = [];
      await consumer.connect();
      await consumer.subscribe({
        topic: testTopic(dlqTopic(TOPICS.locationEvents.name, service.groupId)),
        fromBeginning: true,
      });
      await consumer.run({
        eachMessage: async ({ message }) => {
          letters.push({
            key: message.key?.toString() ?? '',
            value: message.value?.toString() ?? '',
            headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])),
          });
        },
      });
      try {
        await waitFor('the dead letter', async () => letters.some((letter) => letter.key === key), 90_000);
        const letter = letters.find((candidate) => candidate.key === key)!;
        expect(letter.value).toBe(bytes);
        expect(letter.headers[KAFKA_HEADERS.dlqSourceTopic]).toBe(testTopic(TOPICS.locationEvents.name));
        expect(letter.headers[KAFKA_HEADERS.dlqSourceOffset]).toMatch(/^\d+$/);
        expect(letter.headers[KAFKA_HEADERS.dlqError]).toContain('timestamp is required');
        expect(letter.headers[KAFKA_HEADERS.aggregateVersion]).toBe('1');
      } finally {
        await consumer.disconnect();
      }
    });

    it('given an event without a version header, then it is dead-lettered, not applied', async () => {
      const location = aNewLocation();
      await service.bus.publish(TOPICS.locationEvents.name, [
        {
          key: location.id,
          value: JSON.stringify({
            id: randomUUID(),
            type: 'LOCATION_CREATED',
            timestamp: new Date().toISOString(),
            source: 'it',
            data: location,
          }),
        },
      ]);
      const marker = aNewLocation({ id: location.id });
      await publish(service.bus, 'LOCATION_UPDATED', { ...marker, notes: 'with version' }, 2);
      await waitForVersion(location.id, 2);
      expect((await service.get(`/locations/${location.id}`)).body.notes).toBe('with version');
    });
  });

  describe('groups', () => {
    it('serves a created group, follows renames, and answers 404 after deletion; a stale create does not revive it', async () => {
      const group = { id: randomUUID(), name: `Phase ${uniqueSuffix()}`, type: 'OTHER' as const };
      await publish(service.bus, 'LOCATION_GROUP_CREATED', group, 1);
      await waitFor('group created', async () => (await groupVersionOf('location_groups', group.id)) === 1);
      const created = await service.get(`/location-groups/${group.id}`);
      expect(created.status).toBe(200);
      expect(created.body).toEqual(group);
      expect(created.headers['etag']).toBe('"1"');

      const renamed = { ...group, name: `${group.name} renamed` };
      await publish(service.bus, 'LOCATION_GROUP_UPDATED', renamed, 2);
      await publish(service.bus, 'LOCATION_GROUP_DELETED', renamed, 3);
      await publish(service.bus, 'LOCATION_GROUP_CREATED', group, 1);
      await waitFor('group deleted', async () => (await groupVersionOf('location_groups', group.id)) === 3);
      const deleted = await service.get(`/location-groups/${group.id}`);
      expect(deleted.status).toBe(404);
      expect(deleted.body.error).toMatchObject({
        code: 'RESOURCE_NOT_FOUND',
        details: { resourceType: 'locationGroup', resourceId: group.id },
      });
      expect((await service.get(`/location-groups/x`)).body.error.code).toBe('INVALID_REQUEST');
    });

    it('lists groups by type and partial case-insensitive name, with the pagination total', async () => {
      const tag = `Tower-${uniqueSuffix()}`;
      const groups = ['A', 'B', 'C'].map((letter) => ({
        id: randomUUID(),
        name: `${tag} ${letter} 50%_off`,
        type: 'MDU_COMPLEX' as const,
      }));
      for (const group of groups) await publish(service.bus, 'ADDRESS_GROUP_CREATED', group, 1);
      await waitFor('address groups', async () => (await groupVersionOf('address_groups', groups[2]!.id)) === 1);

      const search = encodeURIComponent(tag.toLowerCase());
      const page = await service.get(`/address-groups?type=MDU_COMPLEX&name=${search}&limit=2&offset=1`);
      expect(page.status).toBe(200);
      expect(page.body).toEqual({ addressGroups: groups.slice(1, 3), pagination: { limit: 2, offset: 1, total: 3 } });
      // % and _ in the name filter are literal characters, not wildcards.
      const literal = await service.get(`/address-groups?name=${encodeURIComponent(`${tag} B 50%_`)}`);
      expect(literal.body.addressGroups).toEqual([groups[1]]);
      expect(
        (await service.get(`/address-groups?name=${encodeURIComponent(`${tag} B 5_%`)}`)).body.addressGroups,
      ).toEqual([]);
      expect((await service.get(`/address-groups/${groups[0]!.id}`)).body).toEqual(groups[0]);
    });

    it.each([
      ['/location-groups?limit=0', 'INVALID_LIMIT'],
      ['/location-groups?limit=1001', 'INVALID_LIMIT'],
      ['/address-groups?offset=-1', 'INVALID_OFFSET'],
      ['/address-groups?type=OTHER', 'INVALID_FILTER'],
      ['/location-groups?sort=name', 'INVALID_FILTER'],
    ])('answers %s with 400 %s', async (url, code) => {
      const reply = await service.get(url);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe(code);
    });

    it('answers the defaults limit 100 offset 0', async () => {
      const reply = await service.get('/location-groups');
      expect(reply.status).toBe(200);
      expect(reply.body.pagination).toMatchObject({ limit: 100, offset: 0 });
    });
  });

  describe('GET /locations', () => {
    it('lists the locations of a location group and of an address group, ordered by id, with the total', async () => {
      const locationGroupId = randomUUID();
      const addressGroupId = randomUUID();
      const members: Location[] = [];
      for (let index = 0; index < 5; index += 1) {
        const location = aNewLocation({
          locationGroupId,
          address: {
            streetNumber: String(index + 1),
            streetName: 'Glenarm',
            streetType: 'PLACE',
            ...(index < 2 ? { addressGroupId } : {}),
          },
        });
        members.push(location);
        await publish(service.bus, 'LOCATION_CREATED', location, 1);
      }
      await Promise.all(members.map((location) => waitForVersion(location.id, 1)));
      const byId = [...members].sort((a, b) => a.id.localeCompare(b.id));

      const page = await service.get(`/locations?locationGroupId=${locationGroupId}&limit=3&offset=1`);
      expect(page.status).toBe(200);
      expect(validate(locationListSchema, page.body).ok).toBe(true);
      expect(page.body).toEqual({
        locations: byId.slice(1, 4),
        pagination: { limit: 3, offset: 1, total: 5, next: byId[3]!.id },
      });

      const both = await service.get(`/locations?locationGroupId=${locationGroupId}&addressGroupId=${addressGroupId}`);
      expect(both.body.locations.map((location: Location) => location.id).sort()).toEqual(
        members
          .slice(0, 2)
          .map((location) => location.id)
          .sort(),
      );
      expect(both.body.pagination).toEqual({ limit: 100, offset: 0, total: 2 });

      const moved = { ...members[0]!, locationGroupId: randomUUID() };
      await publish(service.bus, 'LOCATION_UPDATED', moved, 2);
      await waitForVersion(moved.id, 2);
      expect((await service.get(`/locations?locationGroupId=${locationGroupId}`)).body.pagination.total).toBe(4);
    });

    it.each([
      ['/locations?limit=abc', 'INVALID_LIMIT'],
      ['/locations?offset=1.5', 'INVALID_OFFSET'],
      ['/locations?locationGroupId=nope', 'INVALID_FILTER'],
      ['/locations?status=ACTIVE', 'INVALID_FILTER'],
    ])('answers %s with 400 %s naming the parameter', async (url, code) => {
      const reply = await service.get(url);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe(code);
      expect(reply.body.error.details.issues).toHaveLength(1);
    });
  });

  describe(`GET ${LOCATION_SNAPSHOT.path}`, () => {
    it("answers 403 FORBIDDEN to every token without locations:internal, an RSP's and the operator's among them", async () => {
      const rsp = await service.issuer.token({ scopes: ['locations:read'] });
      const operator = await service.issuer.token({ scopes: ['locations:read', 'locations:write'] });
      for (const token of [rsp, operator]) {
        const forbidden = await service.get(LOCATION_SNAPSHOT.path, { token });
        expect(forbidden.status).toBe(403);
        expect(forbidden.body.error).toMatchObject({
          code: 'FORBIDDEN',
          details: { requiredScope: 'locations:internal' },
        });
      }
      expect((await service.get(LOCATION_SNAPSHOT.path, { token: null })).status).toBe(401);
      expect((await service.get(LOCATION_SNAPSHOT.path)).status).toBe(200);
    });

    it('streams a consistent snapshot as NDJSON with the count and time in headers, optionally only recent changes', async () => {
      const older = aNewLocation({ updatedAt: '2020-01-01T00:00:00Z', createdAt: '2020-01-01T00:00:00Z' });
      const newer = aNewLocation();
      await publish(service.bus, 'LOCATION_CREATED', older, 1);
      await publish(service.bus, 'LOCATION_CREATED', newer, 1);
      await waitForVersion(older.id, 1);
      await waitForVersion(newer.id, 1);

      const all = await service.get(LOCATION_SNAPSHOT.path);
      expect(all.status).toBe(200);
      expect(all.headers['content-type']).toBe(LOCATION_SNAPSHOT.contentTypes.json);
      const lines = all.text.split('\n');
      expect(lines.pop()).toBe('');
      const locations = lines.map((line) => JSON.parse(line) as Location);
      expect(Number(all.headers[LOCATION_SNAPSHOT.totalCountHeader])).toBe(locations.length);
      expect(Date.parse(String(all.headers[LOCATION_SNAPSHOT.timestampHeader]))).toBeGreaterThan(Date.now() - 60_000);
      expect(locations).toEqual(expect.arrayContaining([older, newer]));
      const ids = locations.map((location) => location.id);
      expect(ids).toEqual([...ids].sort());

      const recent = await service.get(`${LOCATION_SNAPSHOT.path}?modifiedSince=2021-01-01T00:00:00Z`);
      const recentIds = recent.text
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Location).id);
      expect(recentIds).toContain(newer.id);
      expect(recentIds).not.toContain(older.id);

      const invalid = await service.get(`${LOCATION_SNAPSHOT.path}?modifiedSince=yesterday`);
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.code).toBe('INVALID_DATE_RANGE');
    });

    it('streams the same snapshot as CSV records with format=csv: each location as the CSV export writes it', async () => {
      const locationGroupId = randomUUID();
      const first = aNewLocation({ locationGroupId, notes: 'Gate "B",\nthen left', customFields: { tier: 'gold' } });
      const second = aNewLocation({ locationGroupId });
      await publish(service.bus, 'LOCATION_CREATED', first, 1);
      await publish(service.bus, 'LOCATION_CREATED', second, 1);
      const changed = { ...second, notes: 'changed', updatedAt: new Date(Date.now() + 1000).toISOString() };
      await publish(service.bus, 'LOCATION_UPDATED', changed, 2);
      await waitForVersion(first.id, 1);
      await waitForVersion(second.id, 2);

      const csv = await service.get(`${LOCATION_SNAPSHOT.path}?format=csv&locationGroupId=${locationGroupId}`);
      expect(csv.status).toBe(200);
      expect(csv.headers['content-type']).toBe(LOCATION_SNAPSHOT.contentTypes.csv);
      expect(csv.headers[LOCATION_SNAPSHOT.totalCountHeader]).toBe('2');
      const expected = [first, changed].sort((a, b) => a.id.localeCompare(b.id));
      expect(csv.text).toBe(expected.map(locationCsvRecord).join(''));

      const json = await service.get(`${LOCATION_SNAPSHOT.path}?format=json&locationGroupId=${locationGroupId}`);
      expect(json.text.endsWith('\n')).toBe(true);
      expect(
        json.text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Location),
      ).toEqual(expected);

      const invalid = await service.get(`${LOCATION_SNAPSHOT.path}?format=xml`);
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.code).toBe('INVALID_FORMAT');
      expect(invalid.body.error.details.issues).toEqual([expect.objectContaining({ field: 'format' })]);
    });

    it('streams more rows than one cursor fetch holds', async () => {
      const rows = 2_500;
      await service.db.query(
        `INSERT INTO locations (id, version, body, csv, updated_at)
         SELECT gen_random_uuid(), 1, json_build_object('n', n), n || E'\r\n', now() FROM generate_series(1, $1) AS n`,
        [rows],
      );
      const reply = await service.get(LOCATION_SNAPSHOT.path);
      const count = Number(reply.headers[LOCATION_SNAPSHOT.totalCountHeader]);
      expect(count).toBeGreaterThanOrEqual(rows);
      expect(reply.text.trim().split('\n')).toHaveLength(count);
    });
  });

  it('is ready with its projection', async () => {
    // Readiness follows the consumers as they are now: a broker request that timed out on a loaded machine (kafkajs
    // restarts the consumer) makes a projection "failing" until its next batch applies, and the poisoned message
    // above was retried before it was dead-lettered. What the service promises is that it is ready again after such a
    // failure, so the test waits for it; the reply it last saw names the failing check if it never comes.
    let ready = await service.get('/health/ready', { token: null });
    await waitFor(
      'the service to be ready',
      async () => (ready = await service.get('/health/ready', { token: null })).status === 200,
      30_000,
    ).catch(() => undefined);
    expect({ status: ready.status, body: ready.body }).toMatchObject({ status: 200 });
    expect(Object.keys(ready.body.info)).toEqual(['database', 'kafka', 'projection', 'changes']);
  });
});
