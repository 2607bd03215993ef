import { randomUUID } from 'node:crypto';
import { eventSchema, validate } from '@lx/contracts';
import { waitFor } from '@lx/testing';
import { EventStore } from '../../src/event-store/event-store';
import { gateAfterFenceCheck } from '../support/gate';
import { aLocationBody, type LocationCommandHarness, startLocationCommand } from '../support/location-command-harness';

/** The operator's location-group and address-group write API against real Postgres and Kafka. */
describe('operator group API', () => {
  let service: LocationCommandHarness;

  beforeAll(async () => {
    service = await startLocationCommand();
  }, 60_000);

  afterAll(() => service?.close());

  describe.each([
    ['location-groups', 'LOCATION_GROUP', 'location-group.events.v1', 'OTHER', 'MDU_COMPLEX'],
    ['address-groups', 'ADDRESS_GROUP', 'address-group.events.v1', 'MDU_COMPLEX', 'OTHER'],
  ] as const)('/operator/%s', (path, prefix, topic, type, wrongType) => {
    const url = (id = '') => `/operator/${path}${id === '' ? '' : `/${id}`}`;

    it('creates (POST 201 with Location and ETag), replaces idempotently (PUT), renames (PATCH), publishing each change', async () => {
      const created = await service.request('POST', url(), { body: { name: 'Phase 1', type } });
      expect(created.status).toBe(201);
      const id: string = created.body.id;
      expect(created.body).toEqual({ id, name: 'Phase 1', type });
      expect(created.headers['location']).toBe(url(id));
      expect(created.headers['etag']).toBe('"1"');

      const replayed = await service.request('PUT', url(id), { body: { name: 'Phase 1', type } });
      expect([replayed.status, replayed.headers['etag']]).toEqual([200, '"1"']);

      const renamed = await service.request('PATCH', url(id), {
        body: { name: 'Phase 2' },
        contentType: 'application/merge-patch+json',
      });
      expect([renamed.status, renamed.headers['etag'], renamed.body.name]).toEqual([200, '"2"', 'Phase 2']);

      const messages = await service.events.waitFor(2, [id]);
      expect(messages.map((message) => [message.topic, message.event.type, message.version])).toEqual([
        [topic, `${prefix}_CREATED`, 1],
        [topic, `${prefix}_UPDATED`, 2],
      ]);
      expect(messages[1]!.event.data).toEqual({ id, name: 'Phase 2', type });
      for (const message of messages) expect(validate(eventSchema(message.event.type), message.event).ok).toBe(true);
      expect((await service.request('GET', url(id))).body).toEqual({ id, name: 'Phase 2', type });
    });

    it('creates under the operator id with PUT (201) and refuses the other kind of group type', async () => {
      const id = randomUUID();
      expect((await service.request('PUT', url(id), { body: { name: 'A', type } })).status).toBe(201);
      const wrong = await service.request('PUT', url(randomUUID()), { body: { name: 'A', type: wrongType } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { issues: [{ field: 'type', rule: 'enum' }] },
      });
      const unnamed = await service.request('PATCH', url(id), { body: { name: null } });
      expect(unnamed.body.error.details.issues).toEqual([
        { field: 'name', rule: 'required', message: 'name is required' },
      ]);
    });

    it('refuses If-Match that is not the current ETag with 412', async () => {
      const id = randomUUID();
      await service.request('PUT', url(id), { body: { name: 'A', type } });
      const stale = await service.request('PATCH', url(id), { body: { name: 'B' }, headers: { 'if-match': '"7"' } });
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    });
  });

  it('deletes a group only while no location references it (409 CONFLICT), then publishes its last state', async () => {
    const groupId = randomUUID();
    const addressGroupId = randomUUID();
    const locationId = randomUUID();
    await service.request('PUT', `/operator/location-groups/${groupId}`, { body: { name: 'Zone 9', type: 'OTHER' } });
    await service.request('PUT', `/operator/address-groups/${addressGroupId}`, {
      body: { name: 'Tower', type: 'MDU_COMPLEX' },
    });
    const location = aLocationBody({
      locationGroupId: groupId,
      address: { streetNumber: '1', streetName: 'Main', streetType: 'ST', addressGroupId },
    });
    expect((await service.request('PUT', `/operator/locations/${locationId}`, { body: location })).status).toBe(201);

    const inUse = await service.request('DELETE', `/operator/location-groups/${groupId}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.error).toEqual({
      code: 'CONFLICT',
      message: `location group ${groupId} is referenced by 1 location(s) and cannot be deleted`,
      details: { resourceType: 'locationGroup', resourceId: groupId, referencingLocations: 1 },
    });
    expect((await service.request('DELETE', `/operator/address-groups/${addressGroupId}`)).status).toBe(409);

    await service.request('PATCH', `/operator/locations/${locationId}`, {
      body: { locationGroupId: null, address: { addressGroupId: null } },
    });
    expect((await service.request('DELETE', `/operator/location-groups/${groupId}`)).status).toBe(204);
    expect((await service.request('DELETE', `/operator/address-groups/${addressGroupId}`)).status).toBe(204);

    const messages = await service.events.waitFor(2, [groupId]);
    expect(messages[1]!.event).toMatchObject({
      type: 'LOCATION_GROUP_DELETED',
      data: { id: groupId, name: 'Zone 9', type: 'OTHER' },
    });
    expect((await service.request('DELETE', `/operator/location-groups/${groupId}`)).status).toBe(404);
    expect((await service.request('GET', `/operator/location-groups/${groupId}`)).status).toBe(404);
    const dangling = await service.request('PATCH', `/operator/locations/${locationId}`, {
      body: { locationGroupId: groupId },
    });
    expect(dangling.body.error.code).toBe('INVALID_GROUP_REFERENCE');

    const recreated = await service.request('PUT', `/operator/location-groups/${groupId}`, {
      body: { name: 'Zone 9', type: 'OTHER' },
    });
    expect([recreated.status, recreated.headers['etag']]).toEqual([201, '"3"']);
  });

  it('never lets a delete and a new reference both commit, whatever their interleaving', async () => {
    for (let round = 0; round < 5; round += 1) {
      const groupId = randomUUID();
      const locationId = randomUUID();
      await service.request('PUT', `/operator/location-groups/${groupId}`, { body: { name: 'Race', type: 'OTHER' } });
      const [write, remove] = await Promise.all([
        service.request('PUT', `/operator/locations/${locationId}`, {
          body: aLocationBody({ locationGroupId: groupId }),
        }),
        service.request('DELETE', `/operator/location-groups/${groupId}`),
      ]);
      // Either the location referenced the group first (delete refused), or the group went first (write refused).
      expect([write.status, remove.status].sort()).toEqual(write.status === 201 ? [201, 409] : [204, 400]);
    }
  });

  it('makes a delete wait for a location write that holds the group, then count it (409)', async () => {
    const groupId = randomUUID();
    const locationId = randomUUID();
    await service.request('PUT', `/operator/location-groups/${groupId}`, { body: { name: 'Held', type: 'OTHER' } });
    // The location's one-statement append has locked the group (FOR SHARE) and waits after its events, uncommitted.
    const held = await gateAfterFenceCheck(service.db, locationId);
    try {
      const write = service.request('PUT', `/operator/locations/${locationId}`, {
        body: aLocationBody({ locationGroupId: groupId }),
      });
      await waitFor('the location write to be held', () => held.held(), 10_000);
      const remove = service.request('DELETE', `/operator/location-groups/${groupId}`);
      await waitFor('the delete to wait for the group row', async () => {
        // A writer waiting for a row lock holds the tuple lock of that row meanwhile.
        const { rows } = await service.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'tuple' AND relation = 'aggregate_state'::regclass`,
        );
        return rows[0]!.n > 0;
      });
      await held.open();
      expect((await write).status).toBe(201);
      const removed = await remove;
      expect(removed.status).toBe(409);
      expect(removed.body.error.details).toMatchObject({ referencingLocations: 1 });
    } finally {
      await held.remove();
    }
  });

  it('refuses a location write whose group was deleted after the write read it (400), writing nothing', async () => {
    const groupId = randomUUID();
    const locationId = randomUUID();
    await service.request('PUT', `/operator/location-groups/${groupId}`, { body: { name: 'Gone', type: 'OTHER' } });
    // The write has read the group as existing and decided; the group is deleted before it appends.
    const store = service.app.get(EventStore);
    const appendIfCurrent = store.appendIfCurrent.bind(store);
    const append = jest.spyOn(store, 'appendIfCurrent').mockImplementationOnce(async (...args) => {
      expect((await service.request('DELETE', `/operator/location-groups/${groupId}`)).status).toBe(204);
      return appendIfCurrent(...args);
    });
    try {
      const write = await service.request('PUT', `/operator/locations/${locationId}`, {
        body: aLocationBody({ locationGroupId: groupId }),
      });
      expect(append).toHaveBeenCalledTimes(1);
      expect(write.status).toBe(400);
      expect(write.body.error.code).toBe('INVALID_GROUP_REFERENCE');
      expect(await service.storedEvents(locationId)).toEqual([]);
    } finally {
      append.mockRestore();
    }
  });

  it('refuses an id that already belongs to another kind of aggregate with 409', async () => {
    const id = randomUUID();
    await service.request('PUT', `/operator/locations/${id}`, { body: aLocationBody() });
    const reply = await service.request('PUT', `/operator/location-groups/${id}`, {
      body: { name: 'x', type: 'OTHER' },
    });
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('CONFLICT');
    expect((await service.request('GET', `/operator/location-groups/${id}`)).status).toBe(404);
  });
});
