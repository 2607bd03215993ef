import { createHash, randomUUID } from 'node:crypto';
import { eventSchema, validate } from '@lx/contracts';
import { canonicalJson } from '@lx/domain';
import { waitFor } from '@lx/testing';
import { PurgeIdempotencyKeysSchedule } from '../../src/location/retention/purge-idempotency-keys.schedule';
import { aLocationBody, type LocationCommandHarness, startLocationCommand } from '../support/location-command-harness';

/** The operator's location write API against real Postgres and Kafka, through the real authentication. */
describe('operator location API', () => {
  let service: LocationCommandHarness;

  beforeAll(async () => {
    service = await startLocationCommand();
  }, 60_000);

  afterAll(() => service?.close());

  const put = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    service.request('PUT', `/operator/locations/${id}`, { body, headers });
  const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    service.request('PATCH', `/operator/locations/${id}`, {
      body,
      headers,
      contentType: 'application/merge-patch+json',
    });

  describe('access', () => {
    it('answers 401 without a token and 403 FORBIDDEN to a token without locations:write', async () => {
      expect(
        (await service.request('POST', '/operator/locations', { body: aLocationBody(), token: null })).status,
      ).toBe(401);
      const readOnly = await service.issuer.token({ scopes: ['locations:read'] });
      const forbidden = await service.request('POST', '/operator/locations', {
        body: aLocationBody(),
        token: readOnly,
      });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error.code).toBe('FORBIDDEN');
    });
  });

  describe('create with an Idempotency-Key', () => {
    const post = (body: unknown, key: string, token?: string) =>
      service.request('POST', '/operator/locations', { body, headers: { 'idempotency-key': key }, token });
    const created = async (id: string) =>
      (await service.storedEvents(id)).filter((event) => event.event_type === 'LOCATION_CREATED').length;

    it('answers a repeat with the first reply and creates nothing; another body under the key is 409', async () => {
      const key = `create-${randomUUID()}`;
      const body = { notes: 'first', ...aLocationBody() };
      const first = await post(body, key);
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const id = first.body.id as string;
      expect((await patch(id, { notes: 'changed since' })).status).toBe(200);

      // The same body with its keys in another order.
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const again = await post(reordered, key);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers['etag']).toBe('"1"');
      expect(again.headers['location']).toBe(`/operator/locations/${id}`);
      expect(again.body).toEqual(first.body);
      expect((await service.storedEvents(id)).map((event) => event.event_type)).toEqual([
        'LOCATION_CREATED',
        'LOCATION_UPDATED',
      ]);

      const other = await post({ ...body, notes: 'another body' }, key);
      expect(other.status).toBe(409);
      expect(other.body.error).toMatchObject({ code: 'CONFLICT', details: { locationId: id } });

      // Keys are each client's own.
      const otherClient = await service.issuer.token({
        clientId: `other-${randomUUID()}`,
        scopes: ['locations:write'],
      });
      const theirs = await post(body, key, otherClient);
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).not.toBe(id);
    });

    it('gives the key of a refused request back, refuses a malformed key, and takes over a key after 24 hours', async () => {
      const key = `refused-${randomUUID()}`;
      const refused = await post({ ...aLocationBody(), coordinates: { latitude: 500, longitude: 0 } }, key);
      expect(refused.status).toBe(400);
      const corrected = await post(aLocationBody(), key);
      expect(corrected.status).toBe(201);
      expect(corrected.headers['idempotent-replayed']).toBeUndefined();

      // A body that is not a JSON object is refused as without a key, never a 500.
      for (const [payload, contentType] of [
        [undefined, undefined],
        ['id\n1', 'text/csv'],
        ['[1]', 'application/json'],
      ] as const) {
        const reply = await service.request('POST', '/operator/locations', {
          payload,
          contentType,
          headers: { 'idempotency-key': `odd-${randomUUID()}` },
        });
        expect(reply.body.error.code).toEqual(expect.any(String));
        expect(reply.status).toBeGreaterThanOrEqual(400);
        expect(reply.status).toBeLessThan(500);
      }

      const malformed = await post(aLocationBody(), 'with space');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.details.issues).toEqual([
        expect.objectContaining({ field: 'Idempotency-Key', rule: 'format' }),
      ]);

      await service.db.query(
        `UPDATE idempotency_keys SET created_at = created_at - interval '24 hours 1 second' WHERE idempotency_key = $1`,
        [key],
      );
      const later = await post(aLocationBody(), key);
      expect(later.status).toBe(201);
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      expect(later.body.id).not.toBe(corrected.body.id);
    });

    it('creates one location for concurrent repeats, and creates it for a repeat that finds the key claimed but nothing written', async () => {
      const key = `race-${randomUUID()}`;
      const body = aLocationBody();
      const replies = await Promise.all(Array.from({ length: 6 }, () => post(body, key)));
      expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 201));
      const ids = new Set(replies.map((reply) => reply.body.id as string));
      expect(ids.size).toBe(1);
      const [id] = [...ids];
      expect(await created(id!)).toBe(1);
      expect(replies.filter((reply) => reply.headers['idempotent-replayed'] === undefined)).toHaveLength(1);

      // A first request cut off after its claim: the repeat creates the location under the claimed id.
      const cutOff = `cut-off-${randomUUID()}`;
      const claimedId = randomUUID();
      await service.db.query(
        `INSERT INTO idempotency_keys (client_id, idempotency_key, request_hash, stream_id, created_at)
         SELECT client_id, $1, $2, $3, now() FROM idempotency_keys WHERE idempotency_key = $4`,
        [cutOff, createHash('sha256').update(canonicalJson(body)).digest('hex'), claimedId, key],
      );
      const repeat = await post(body, cutOff);
      expect(repeat.status).toBe(201);
      expect(repeat.body.id).toBe(claimedId);
      expect(repeat.headers['idempotent-replayed']).toBeUndefined();
      expect(await created(claimedId)).toBe(1);
    });

    it('retention deletes the keys older than the window, and a repeat after it creates anew as it would have', async () => {
      const old = `purged-${randomUUID()}`;
      const fresh = `kept-${randomUUID()}`;
      const first = await post(aLocationBody(), old);
      const keptBody = aLocationBody();
      const kept = await post(keptBody, fresh);
      expect([first.status, kept.status]).toEqual([201, 201]);
      await service.db.query(
        `UPDATE idempotency_keys SET created_at = created_at - interval '25 hours 1 second' WHERE idempotency_key = $1`,
        [old],
      );
      // The round (its own once-a-minute round may have run first: the keys left are what counts).
      await service.app.get(PurgeIdempotencyKeysSchedule).execute();
      const { rows } = await service.db.query(
        'SELECT idempotency_key FROM idempotency_keys WHERE idempotency_key = ANY($1::text[])',
        [[old, fresh]],
      );
      expect(rows).toEqual([{ idempotency_key: fresh }]);
      const again = await post(aLocationBody(), old);
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(first.body.id);
      const replayed = await post(keptBody, fresh);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.body.id).toBe(kept.body.id);
    });
  });

  describe('create', () => {
    it('POST creates under a server-generated UUID, answers 201 with Location and ETag, and publishes LOCATION_CREATED', async () => {
      const reply = await service.request('POST', '/operator/locations', {
        body: aLocationBody({ notes: 'gate code 12' }),
      });

      expect(reply.status).toBe(201);
      const location = reply.body;
      expect(location.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(location.createdAt).toBe(location.updatedAt);
      expect(location).toMatchObject(aLocationBody({ notes: 'gate code 12' }));
      expect(reply.headers['location']).toBe(`/operator/locations/${location.id}`);
      expect(reply.headers['etag']).toBe('"1"');

      const [message] = await service.events.waitFor(1, [location.id]);
      expect(message).toMatchObject({ topic: 'location.events.v1', key: location.id, version: 1 });
      expect(message!.event).toMatchObject({ type: 'LOCATION_CREATED', source: 'location-command', data: location });
      expect(message!.headers['lx-correlation-id']).toBeDefined();
      expect(validate(eventSchema('LOCATION_CREATED'), message!.event).ok).toBe(true);
    });

    it('POST refuses a body naming its own id', async () => {
      const reply = await service.request('POST', '/operator/locations', {
        body: { ...aLocationBody(), id: randomUUID() },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { issues: [{ field: 'id', rule: 'notAllowed' }] },
      });
    });

    it('POST refuses the NUL character in any string, which the read side could not store, and records nothing', async () => {
      const reply = await service.request('POST', '/operator/locations', {
        body: { ...aLocationBody(), notes: 'gate\u0000code', customFields: { 'k\u0000': 'v' } },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: {
          issues: [
            { field: 'notes', rule: 'noNulCharacter' },
            { field: 'customFields["k\\u0000"]', rule: 'noNulCharacter' },
          ],
        },
      });
    });
  });

  describe('create-or-replace (PUT)', () => {
    it('creates under the operator id (201), then a replayed body changes nothing and emits nothing (200, same ETag)', async () => {
      const id = randomUUID();
      const created = await put(id.toUpperCase(), aLocationBody());
      expect(created.status).toBe(201);
      expect(created.body.id).toBe(id);
      expect(created.headers['etag']).toBe('"1"');

      const replayed = await put(id, aLocationBody());
      expect(replayed.status).toBe(200);
      expect(replayed.headers['etag']).toBe('"1"');
      expect(replayed.body).toEqual(created.body);

      const roundTrip = await put(id, created.body);
      expect(roundTrip.headers['etag']).toBe('"1"');
      expect(await service.storedEvents(id)).toHaveLength(1);
      // A marker write of the same location follows the replays on its partition (same key, the relay keeps key order):
      // once the marker arrived, anything the replays had published would have arrived before it.
      expect((await patch(id, { notes: 'marker' })).headers['etag']).toBe('"2"');
      await waitFor('the marker event', () =>
        Promise.resolve(service.events.of(id).some((message) => message.event.data.notes === 'marker')),
      );
      const published = service.events.of(id);
      expect(published.map((message) => [message.version, message.event.type, message.event.data.notes])).toEqual([
        [1, 'LOCATION_CREATED', undefined],
        [2, 'LOCATION_UPDATED', 'marker'],
      ]);
    });

    it('replaces with a change: 200, ETag 2, createdAt kept, updatedAt moved, LOCATION_UPDATED with modifiedFields', async () => {
      const id = randomUUID();
      const created = (await put(id, aLocationBody({ status: 'PLANNED' }))).body;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const replaced = await put(id, aLocationBody({ coordinates: undefined, status: 'ACTIVE' }));

      expect(replaced.status).toBe(200);
      expect(replaced.headers['etag']).toBe('"2"');
      expect(replaced.body.createdAt).toBe(created.createdAt);
      expect(replaced.body.updatedAt > created.updatedAt).toBe(true);
      expect(replaced.body).not.toHaveProperty('coordinates');

      const messages = await service.events.waitFor(2, [id]);
      expect(messages.map((message) => [message.event.type, message.version])).toEqual([
        ['LOCATION_CREATED', 1],
        ['LOCATION_UPDATED', 2],
      ]);
      expect(messages[1]!.event.modifiedFields).toEqual({
        coordinates: null,
        fiberAccessDetails: { serviceability: { status: 'ACTIVE' } },
      });
      expect(messages[1]!.event.data).toEqual(replaced.body);
      expect(validate(eventSchema('LOCATION_UPDATED'), messages[1]!.event).ok).toBe(true);
    });

    it('refuses a body whose id names another location', async () => {
      const reply = await put(randomUUID(), { ...aLocationBody(), id: randomUUID() });
      expect(reply.status).toBe(400);
      expect(reply.body.error.details.issues[0]).toMatchObject({ field: 'id', rule: 'matchesTarget' });
    });
  });

  describe('partial update (PATCH, JSON Merge Patch)', () => {
    it('merges the patch, removes fields set to null, and publishes only the changed leaves', async () => {
      const id = randomUUID();
      await put(id, { ...aLocationBody({ status: 'CONSTRUCTION' }), customFields: { tier: 'gold', floors: 3 } });
      const reply = await patch(id, {
        fiberAccessDetails: { serviceability: { status: 'ACTIVE' } },
        customFields: { floors: null, tags: ['a', 1] },
        notes: 'lit',
      });

      expect(reply.status).toBe(200);
      expect(reply.headers['etag']).toBe('"2"');
      expect(reply.body).toMatchObject({
        notes: 'lit',
        fiberAccessDetails: { serviceability: { status: 'ACTIVE' } },
        customFields: { tier: 'gold', tags: ['a', 1] },
      });
      const [, updated] = await service.events.waitFor(2, [id]);
      expect(updated!.event.modifiedFields).toEqual({
        notes: 'lit',
        fiberAccessDetails: { serviceability: { status: 'ACTIVE' } },
        customFields: { floors: null, tags: ['a', 1] },
      });
    });

    it('takes application/json too, and answers 404 RESOURCE_NOT_FOUND for an unknown location', async () => {
      const id = randomUUID();
      const reply = await service.request('PATCH', `/operator/locations/${id}`, { body: { notes: 'x' } });
      expect(reply.status).toBe(404);
      expect(reply.body.error).toEqual({
        code: 'RESOURCE_NOT_FOUND',
        message: `location ${id} was not found`,
        details: { resourceType: 'location', resourceId: id },
      });
    });

    it('emits nothing for a patch that changes nothing', async () => {
      const id = randomUUID();
      await put(id, aLocationBody());
      const reply = await patch(id, { geography: { country: 'US' } });
      expect(reply.headers['etag']).toBe('"1"');
      expect(await service.storedEvents(id)).toHaveLength(1);
    });
  });

  describe('If-Match', () => {
    it('refuses a write whose If-Match is not the current ETag with 412 and records nothing', async () => {
      const id = randomUUID();
      await put(id, aLocationBody());
      await patch(id, { notes: 'second' });

      const stale = await patch(id, { notes: 'third' }, { 'if-match': '"1"' });
      expect(stale.status).toBe(412);
      expect(stale.body.error).toMatchObject({ code: 'PRECONDITION_FAILED', details: { expected: '"1"', current: 2 } });

      const fresh = await patch(id, { notes: 'third' }, { 'if-match': '"2"' });
      expect(fresh.status).toBe(200);
      expect(fresh.headers['etag']).toBe('"3"');
      expect(await service.storedEvents(id)).toHaveLength(3);
    });

    it('refuses a malformed If-Match (not * nor entity tags) with 400 INVALID_REQUEST, whatever the version', async () => {
      const id = randomUUID();
      await put(id, aLocationBody());
      for (const ifMatch of ['1', '', '"1" "2"']) {
        const reply = await patch(id, { notes: 'x' }, { 'if-match': ifMatch });
        expect(reply.status).toBe(400);
        expect(reply.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { header: 'If-Match' } });
      }
      expect(await service.storedEvents(id)).toHaveLength(1);
    });

    it('refuses If-Match * and If-Match on a location that does not exist yet', async () => {
      expect((await put(randomUUID(), aLocationBody(), { 'if-match': '*' })).status).toBe(412);
      expect((await put(randomUUID(), aLocationBody(), { 'if-match': '"1"' })).status).toBe(412);
    });

    it('lets exactly one of two concurrent writers with the same If-Match win; the other gets 412', async () => {
      const id = randomUUID();
      await put(id, aLocationBody());
      const replies = await Promise.all([
        patch(id, { notes: 'tool A' }, { 'if-match': '"1"' }),
        patch(id, { notes: 'tool B' }, { 'if-match': '"1"' }),
      ]);
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 412]);
      expect((await service.storedEvents(id)).map((event) => event.stream_version)).toEqual([1, 2]);
    });

    it('serializes concurrent writers of one new id without If-Match: all succeed, one creates, versions stay gapless', async () => {
      for (let round = 0; round < 10; round += 1) {
        const id = randomUUID();
        const replies = await Promise.all(
          ['a', 'b', 'c', 'd', 'e', 'f'].map((notes) => put(id, aLocationBody({ notes }))),
        );
        const failures = replies.filter((reply) => reply.status !== 200 && reply.status !== 201);
        expect(failures.map((reply) => reply.body)).toEqual([]);
        expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1);
        const versions = (await service.storedEvents(id)).map((event) => event.stream_version);
        expect(versions).toEqual([1, 2, 3, 4, 5, 6]);
      }
    });
  });

  describe('rejections (400 in the spec error shape, naming the field and the rule)', () => {
    it.each([
      ['no geography', 'VALIDATION_ERROR', 'geography', 'required', aLocationBody({ geography: undefined })],
      [
        'geography only',
        'MISSING_LOCATION_DATA',
        '',
        'addressOrCoordinates',
        aLocationBody({ address: undefined, coordinates: undefined }),
      ],
      [
        'latitude 91',
        'INVALID_COORDINATES',
        'coordinates.latitude',
        'range',
        aLocationBody({ coordinates: { latitude: 91, longitude: 0 } }),
      ],
      [
        'longitude as text',
        'INVALID_COORDINATES',
        'coordinates.longitude',
        'type',
        aLocationBody({ coordinates: { latitude: 1, longitude: 'east' } }),
      ],
      [
        'an address without streetType',
        'INVALID_ADDRESS_FORMAT',
        'address.streetType',
        'required',
        aLocationBody({ address: { streetNumber: '1', streetName: 'Main' } }),
      ],
      [
        'a subunitType alone',
        'INVALID_ADDRESS_FORMAT',
        'address.subunitIdentifier',
        'requiredWith',
        aLocationBody({ address: { streetNumber: '1', streetName: 'Main', streetType: 'ST', subunitType: 'APT' } }),
      ],
      [
        'streetDirection NNE',
        'INVALID_ADDRESS_FORMAT',
        'address.streetDirection',
        'enum',
        aLocationBody({ address: { streetNumber: '1', streetName: 'Main', streetType: 'ST', streetDirection: 'NNE' } }),
      ],
      [
        'country "usa"',
        'VALIDATION_ERROR',
        'geography.country',
        'countryCode',
        aLocationBody({ geography: { country: 'usa', region: 'CO', locality: 'Denver', postalCode: '1' } }),
      ],
      [
        'a nested custom field',
        'VALIDATION_ERROR',
        'customFields.a',
        'customFieldValue',
        aLocationBody({ customFields: { a: { b: 1 } } }),
      ],
      [
        'an unknown status',
        'VALIDATION_ERROR',
        'fiberAccessDetails.serviceability.status',
        'enum',
        aLocationBody({ status: 'LIVE' }),
      ],
      [
        'an availableDate of 2023-02-29',
        'VALIDATION_ERROR',
        'fiberAccessDetails.serviceability.availableDate',
        'date',
        aLocationBody({ fiberAccessDetails: { serviceability: { status: 'ACTIVE', availableDate: '2023-02-29' } } }),
      ],
      [
        'layer2AccessProtocol XPON',
        'VALIDATION_ERROR',
        'fiberAccessDetails.layer2AccessProtocol',
        'enum',
        aLocationBody({ fiberAccessDetails: { layer2AccessProtocol: 'XPON' } }),
      ],
      ['an unknown field', 'VALIDATION_ERROR', 'colour', 'unknownField', aLocationBody({ colour: 'blue' })],
      ['notes: null', 'VALIDATION_ERROR', 'notes', 'notNull', aLocationBody({ notes: null })],
      [
        'a malformed locationGroupId',
        'VALIDATION_ERROR',
        'locationGroupId',
        'uuid',
        aLocationBody({ locationGroupId: 'group-1' }),
      ],
      [
        'an unknown location group',
        'INVALID_GROUP_REFERENCE',
        'locationGroupId',
        'groupExists',
        aLocationBody({ locationGroupId: '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50' }),
      ],
      [
        'an unknown address group',
        'INVALID_GROUP_REFERENCE',
        'address.addressGroupId',
        'groupExists',
        aLocationBody({
          address: {
            streetNumber: '1',
            streetName: 'Main',
            streetType: 'ST',
            addressGroupId: '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
          },
        }),
      ],
    ])(
      'a body with %s is refused with %s on %p (%s), and nothing is recorded',
      async (_case, code, field, rule, body) => {
        const id = randomUUID();
        const reply = await put(id, body);
        expect(reply.status).toBe(400);
        expect(reply.body.error.code).toBe(code);
        expect(reply.body.error.details.issues).toContainEqual(expect.objectContaining({ field, rule }));
        expect(reply.body.error.message).toEqual(expect.any(String));
        expect(await service.storedEvents(id)).toHaveLength(0);
      },
    );

    it.each(['CANCELLED', 'RETIRED'])(
      'a %s location cannot change status: INVALID_STATUS_TRANSITION, other fields may change',
      async (terminal) => {
        const id = randomUUID();
        await put(id, aLocationBody({ status: terminal }));
        const refused = await patch(id, { fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } });
        expect(refused.status).toBe(400);
        expect(refused.body.error).toEqual({
          code: 'INVALID_STATUS_TRANSITION',
          message: `serviceability status cannot change from ${terminal} to ACTIVE`,
          details: { from: terminal, to: 'ACTIVE' },
        });
        expect((await patch(id, { fiberAccessDetails: null })).body.error.code).toBe('INVALID_STATUS_TRANSITION');
        expect((await patch(id, { notes: 'still here' })).status).toBe(200);
      },
    );

    it('answers 400 INVALID_REQUEST for a malformed id in the path and for malformed JSON', async () => {
      const badId = await put('not-a-uuid', aLocationBody());
      expect(badId.status).toBe(400);
      expect(badId.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'id must be a UUID' });
      const badJson = await service.request('PUT', `/operator/locations/${randomUUID()}`, {
        payload: '{"geography":',
        contentType: 'application/json',
      });
      expect(badJson.status).toBe(400);
      expect(badJson.body.error.code).toBe('INVALID_REQUEST');
    });
  });

  describe('reads for operator tools', () => {
    it('GET returns the current location with its ETag, 404 for an unknown id', async () => {
      const id = randomUUID();
      await put(id, aLocationBody());
      await patch(id, { notes: 'two' });
      const reply = await service.request('GET', `/operator/locations/${id}`);
      expect(reply.status).toBe(200);
      expect(reply.headers['etag']).toBe('"2"');
      expect(reply.body).toMatchObject({ id, notes: 'two' });
      expect((await service.request('GET', `/operator/locations/${randomUUID()}`)).status).toBe(404);
    });
  });
});
