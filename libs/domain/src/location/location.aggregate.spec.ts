import type { Location } from '@lx/contracts';
import { ValidationFailedError } from '../errors/domain-error';
import { aLocation, aLocationInput, anAddress } from '../testing';
import { NO_GROUPS, type ExistingGroups } from './group-references';
import {
  decideLocation,
  evolveLocation,
  type LocationCommand,
  type LocationEvent,
  type LocationState,
} from './location.aggregate';

const id = '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11';
const created = '2024-01-15T10:00:00Z';
const now = '2024-03-01T08:30:00Z';
const locationGroupId = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';
const addressGroupId = '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f';
const groups: ExistingGroups = { locationGroups: new Set([locationGroupId]), addressGroups: new Set([addressGroupId]) };

const createdEvent = (
  location: Location = aLocation({ id, createdAt: created, updatedAt: created }),
): LocationEvent => ({
  type: 'LOCATION_CREATED',
  data: location,
});

/** Given these events happened, when the command is decided: the events it records, or its error. */
function given(...events: LocationEvent[]) {
  const state = events.reduce<LocationState>(evolveLocation, undefined);
  return {
    when(command: LocationCommand) {
      const result = decideLocation(command, state);
      return result.ok ? { events: result.value } : { error: result.error };
    },
  };
}

const replace = (body: unknown, existingGroups: ExistingGroups = NO_GROUPS): LocationCommand => ({
  type: 'ReplaceLocation',
  locationId: id,
  body,
  now,
  existingGroups,
});
const patch = (body: unknown, existingGroups: ExistingGroups = NO_GROUPS): LocationCommand => ({
  type: 'PatchLocation',
  locationId: id,
  patch: body,
  now,
  existingGroups,
});
const create = (body: unknown): LocationCommand => ({
  type: 'CreateLocation',
  locationId: id,
  body,
  now,
  existingGroups: NO_GROUPS,
});
const retire: LocationCommand = { type: 'RetireLocation', locationId: id, now };
const withStatus = (status: NonNullable<Parameters<typeof aLocation>[0]>['status']) =>
  createdEvent(aLocation({ id, createdAt: created, updatedAt: created, status }));

describe('location aggregate', () => {
  describe('create (POST, server-assigned id)', () => {
    it('given nothing, when created, then LOCATION_CREATED with createdAt = updatedAt = now', () => {
      expect(given().when(create(aLocationInput()))).toEqual({
        events: [{ type: 'LOCATION_CREATED', data: { id, createdAt: now, updatedAt: now, ...aLocationInput() } }],
      });
    });

    it('given nothing, when created with an id in the body, then VALIDATION_ERROR: the server assigns it', () => {
      const { error } = given().when(create({ ...aLocationInput(), id }));
      expect(error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { issues: [{ field: 'id', rule: 'notAllowed', message: 'id is not allowed: the server assigns it' }] },
      });
    });

    it('given the location exists, when created again, then CONFLICT', () => {
      expect(given(createdEvent()).when(create(aLocationInput())).error).toMatchObject({ code: 'CONFLICT' });
    });
  });

  describe('replace (PUT, import)', () => {
    it('given nothing, when replaced, then LOCATION_CREATED', () => {
      const { events } = given().when(replace(aLocationInput()));
      expect(events).toEqual([
        { type: 'LOCATION_CREATED', data: { id, createdAt: now, updatedAt: now, ...aLocationInput() } },
      ]);
    });

    it('given an upper-case id, when replaced, then the location and its references are stored in lower case', () => {
      const body = aLocationInput({
        locationGroupId: locationGroupId.toUpperCase(),
        address: anAddress({ addressGroupId: addressGroupId.toUpperCase() }),
      });
      const result = decideLocation({ ...replace(body, groups), locationId: id.toUpperCase() }, undefined);
      expect(result.ok && result.value[0]?.data).toMatchObject({
        id,
        locationGroupId,
        address: { addressGroupId },
      });
    });

    it('given the location, when the same body is replayed, then nothing is recorded (idempotent PUT)', () => {
      expect(given(createdEvent()).when(replace(aLocationInput()))).toEqual({ events: [] });
    });

    it('given the location, when its GET reply is PUT back with other timestamps, then nothing is recorded', () => {
      const body = { ...aLocationInput(), id: id.toUpperCase(), createdAt: now, updatedAt: now };
      expect(given(createdEvent()).when(replace(body))).toEqual({ events: [] });
    });

    it('given the location, when replaced with another status, then LOCATION_UPDATED keeps createdAt, moves updatedAt', () => {
      const { events } = given(withStatus('PLANNED')).when(replace(aLocationInput({ status: 'ACTIVE' })));
      expect(events).toEqual([
        {
          type: 'LOCATION_UPDATED',
          data: { id, createdAt: created, updatedAt: now, ...aLocationInput({ status: 'ACTIVE' }) },
          modifiedFields: { fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } },
        },
      ]);
    });

    it('given the location, when replaced without coordinates, then modifiedFields says coordinates: null', () => {
      const { events } = given(createdEvent()).when(replace(aLocationInput({ coordinates: undefined })));
      expect(events?.[0]).toMatchObject({ type: 'LOCATION_UPDATED', modifiedFields: { coordinates: null } });
    });

    it('given the location, when a body names another id, then VALIDATION_ERROR on id', () => {
      const { error } = given(createdEvent()).when(
        replace({ ...aLocationInput(), id: '9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b' }),
      );
      expect(error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: {
          issues: [{ field: 'id', rule: 'matchesTarget', message: `id must be ${id}, the location written` }],
        },
      });
    });

    it.each([
      ['geography only', aLocationInput({ address: undefined, coordinates: undefined }), 'MISSING_LOCATION_DATA'],
      ['latitude 91', aLocationInput({ coordinates: { latitude: 91, longitude: 0 } }), 'INVALID_COORDINATES'],
      ['a subunitType alone', aLocationInput({ address: anAddress({ subunitType: 'APT' }) }), 'INVALID_ADDRESS_FORMAT'],
      ['an unknown field', { ...aLocationInput(), colour: 'blue' }, 'VALIDATION_ERROR'],
      ['a body that is not an object', [aLocationInput()], 'VALIDATION_ERROR'],
    ])('given nothing, when replaced with %s, then %s', (_case, body, code) => {
      expect(given().when(replace(body)).error).toMatchObject({ code });
    });

    it('given no such groups, when a body references them, then INVALID_GROUP_REFERENCE names both fields', () => {
      const body = aLocationInput({ locationGroupId, address: anAddress({ addressGroupId }) });
      expect(given().when(replace(body)).error).toMatchObject({
        code: 'INVALID_GROUP_REFERENCE',
        details: {
          issues: [
            {
              field: 'locationGroupId',
              rule: 'groupExists',
              message: `locationGroupId ${locationGroupId} names no location group`,
            },
            {
              field: 'address.addressGroupId',
              rule: 'groupExists',
              message: `address.addressGroupId ${addressGroupId} names no address group`,
            },
          ],
        },
      });
    });

    it('given both groups exist, when a body references them, then LOCATION_CREATED', () => {
      const body = aLocationInput({ locationGroupId, address: anAddress({ addressGroupId }) });
      expect(given().when(replace(body, groups)).events?.[0]?.type).toBe('LOCATION_CREATED');
    });

    it.each(['CANCELLED', 'RETIRED'] as const)(
      'given a %s location, when replaced with another status, then INVALID_STATUS_TRANSITION',
      (terminal) => {
        expect(given(withStatus(terminal)).when(replace(aLocationInput({ status: 'ACTIVE' }))).error).toMatchObject({
          code: 'INVALID_STATUS_TRANSITION',
          details: { from: terminal, to: 'ACTIVE' },
        });
      },
    );

    it('given a RETIRED location, when its notes change and the status stays, then LOCATION_UPDATED', () => {
      const { events } = given(withStatus('RETIRED')).when(
        replace(aLocationInput({ status: 'RETIRED', notes: 'gone' })),
      );
      expect(events?.[0]).toMatchObject({ type: 'LOCATION_UPDATED', modifiedFields: { notes: 'gone' } });
    });

    it('given a CANCELLED location, when replaced without fiberAccessDetails, then INVALID_STATUS_TRANSITION', () => {
      expect(given(withStatus('CANCELLED')).when(replace(aLocationInput())).error).toMatchObject({
        code: 'INVALID_STATUS_TRANSITION',
        details: { from: 'CANCELLED', to: null },
      });
    });
  });

  describe('patch (PATCH, JSON Merge Patch)', () => {
    it('given nothing, when patched, then RESOURCE_NOT_FOUND for the location', () => {
      expect(given().when(patch({ notes: 'x' })).error).toMatchObject({
        code: 'RESOURCE_NOT_FOUND',
        details: { resourceType: 'location', resourceId: id },
      });
    });

    it('given the location, when a status is merged in, then only that leaf is modified', () => {
      const { events } = given(withStatus('PLANNED')).when(
        patch({ fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } } }),
      );
      expect(events).toEqual([
        {
          type: 'LOCATION_UPDATED',
          data: aLocation({ id, createdAt: created, updatedAt: now, status: 'CONSTRUCTION' }),
          modifiedFields: { fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } } },
        },
      ]);
    });

    it('given the location, when null removes the coordinates, then LOCATION_UPDATED with coordinates: null', () => {
      const { events } = given(createdEvent()).when(patch({ coordinates: null }));
      expect(events?.[0]).toMatchObject({ modifiedFields: { coordinates: null } });
      expect(events?.[0]?.data).not.toHaveProperty('coordinates');
    });

    it('given an address-only location, when null removes the address, then MISSING_LOCATION_DATA', () => {
      const state = createdEvent(aLocation({ id, coordinates: undefined }));
      expect(given(state).when(patch({ address: null })).error).toMatchObject({ code: 'MISSING_LOCATION_DATA' });
    });

    it('given custom fields, when one key is patched and one removed, then the others stay', () => {
      const state = createdEvent(aLocation({ id, customFields: { tier: 'gold', floors: 3, old: true } }));
      const { events } = given(state).when(patch({ customFields: { floors: 4, old: null } }));
      expect(events?.[0]).toMatchObject({
        data: { customFields: { tier: 'gold', floors: 4 } },
        modifiedFields: { customFields: { floors: 4, old: null } },
      });
    });

    it('given the location, when the patch changes nothing, then nothing is recorded', () => {
      expect(given(createdEvent()).when(patch({ geography: { country: 'US' }, updatedAt: now }))).toEqual({
        events: [],
      });
    });

    it('given a RETIRED location, when the status is patched to ACTIVE, then INVALID_STATUS_TRANSITION', () => {
      const { error } = given(withStatus('RETIRED')).when(
        patch({ fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } }),
      );
      expect(error).toMatchObject({ code: 'INVALID_STATUS_TRANSITION' });
    });

    it('given the location, when a patch sets an unknown group, then INVALID_GROUP_REFERENCE', () => {
      expect(given(createdEvent()).when(patch({ locationGroupId })).error).toMatchObject({
        code: 'INVALID_GROUP_REFERENCE',
      });
    });

    it('given the location, when the patch is not an object, then VALIDATION_ERROR', () => {
      expect(given(createdEvent()).when(patch([1])).error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'a merge patch must be a JSON object',
      });
    });

    it('given the location, when a patch breaks a rule, then the error names the field', () => {
      expect(given(createdEvent()).when(patch({ coordinates: { latitude: -90.5 } })).error).toMatchObject({
        code: 'INVALID_COORDINATES',
        details: { issues: [{ field: 'coordinates.latitude', rule: 'range' }] },
      });
    });
  });

  describe('retire (full-replace import)', () => {
    it('given an ACTIVE location, when retired, then LOCATION_UPDATED to RETIRED keeping availableDate', () => {
      const state = createdEvent(
        aLocation({
          id,
          fiberAccessDetails: { fda: 'F', serviceability: { status: 'ACTIVE', availableDate: '2024-01-01' } },
        }),
      );
      expect(given(state).when(retire).events).toEqual([
        {
          type: 'LOCATION_UPDATED',
          data: aLocation({
            id,
            updatedAt: now,
            fiberAccessDetails: { fda: 'F', serviceability: { status: 'RETIRED', availableDate: '2024-01-01' } },
          }),
          modifiedFields: { fiberAccessDetails: { serviceability: { status: 'RETIRED' } } },
        },
      ]);
    });

    it('given a location without serviceability, when retired, then it gains status RETIRED', () => {
      expect(given(createdEvent()).when(retire).events?.[0]).toMatchObject({
        modifiedFields: { fiberAccessDetails: { serviceability: { status: 'RETIRED' } } },
      });
    });

    it.each(['CANCELLED', 'RETIRED'] as const)(
      'given a %s location, when retired, then nothing is recorded',
      (status) => {
        expect(given(withStatus(status)).when(retire)).toEqual({ events: [] });
      },
    );

    it('given nothing, when retired, then RESOURCE_NOT_FOUND', () => {
      expect(given().when(retire).error).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    });
  });

  describe('evolve', () => {
    it('given created then updated, when folded, then the state is the data of the last event', () => {
      const updated = aLocation({ id, status: 'ACTIVE' });
      const events: LocationEvent[] = [
        createdEvent(),
        {
          type: 'LOCATION_UPDATED',
          data: updated,
          modifiedFields: { fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } },
        },
      ];
      expect(events.reduce<LocationState>(evolveLocation, undefined)).toBe(updated);
    });
  });
});

describe('location aggregate: rejections in detail', () => {
  const otherId = '9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b';
  const issuesOf = (outcome: { error?: unknown }) => {
    expect(outcome.error).toBeInstanceOf(ValidationFailedError);
    return (outcome.error as ValidationFailedError).details.issues;
  };

  it('given the location exists, when created again, then the CONFLICT message names it', () => {
    expect(given(createdEvent()).when(create(aLocationInput())).error).toMatchObject({
      code: 'CONFLICT',
      message: `location ${id} already exists`,
    });
  });

  it.each([otherId, 42, null])(
    'given the location, when a body carries id %j, then it must match the target',
    (bad) => {
      expect(issuesOf(given(createdEvent()).when(replace({ ...aLocationInput(), id: bad })))).toStrictEqual([
        { field: 'id', rule: 'matchesTarget', message: `id must be ${id}, the location written` },
      ]);
    },
  );

  it('given the location, when a patch carries another id, then it must match the target and nothing is merged', () => {
    expect(issuesOf(given(createdEvent()).when(patch({ id: otherId, notes: 'x' })))).toStrictEqual([
      { field: 'id', rule: 'matchesTarget', message: `id must be ${id}, the location written` },
    ]);
  });

  it.each([[[1]], ['notes'], [null], [7]])(
    'given the location, when the patch is %j, then VALIDATION_ERROR on the patch itself',
    (body) => {
      expect(issuesOf(given(createdEvent()).when(patch(body)))).toStrictEqual([
        { field: '', rule: 'type', message: 'a merge patch must be a JSON object' },
      ]);
    },
  );

  it.each([null, 'a location', 7])(
    'given nothing, when the body is %j, then VALIDATION_ERROR on the body itself',
    (body) => {
      expect(issuesOf(given().when(replace(body)))).toStrictEqual([expect.objectContaining({ field: '' })]);
    },
  );

  it('given nothing, when retired, then RESOURCE_NOT_FOUND names the location', () => {
    expect(given().when(retire).error).toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
      details: { resourceType: 'location', resourceId: id },
    });
  });

  it('given nothing, when a location with coordinates and no address is written, then LOCATION_CREATED', () => {
    const body = aLocationInput({ address: undefined, locationGroupId: locationGroupId.toUpperCase() });
    expect(given().when(replace(body, groups))).toEqual({
      events: [{ type: 'LOCATION_CREATED', data: { id, createdAt: now, updatedAt: now, ...body, locationGroupId } }],
    });
  });
});
