import { z } from 'zod';
import { issuesOf, sampleLocation } from '../testing/fixtures';
import { eventEnvelopeSchema } from './envelope';
import { EVENT_CATALOG, EVENT_TYPES, eventSchema, validateEvent, type EventOf } from './event-types';
import { ALL_TOPICS } from './topics';

const envelope = {
  id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  timestamp: '2024-03-01T08:30:00.250Z',
  source: 'location-command',
};
const created: EventOf<'LOCATION_CREATED'> = { ...envelope, type: 'LOCATION_CREATED', data: sampleLocation };
const updated: EventOf<'LOCATION_UPDATED'> = {
  ...envelope,
  type: 'LOCATION_UPDATED',
  data: sampleLocation,
  modifiedFields: { fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } },
};
const client = {
  clientId: 'rsp-acme',
  name: 'Acme Fiber',
  kind: 'RSP',
  scopes: ['locations:read'],
  enabled: true,
  webhookUrl: 'https://hooks.acme.example/lx',
  webhookSecretSealed: Buffer.from('version|iv|tag|ciphertext of whsec_abc').toString('base64'),
};

describe('EVENT_CATALOG', () => {
  it('given the catalog, when listed, then holds the sixteen event types', () => {
    expect(EVENT_TYPES).toEqual([
      'LOCATION_CREATED',
      'LOCATION_UPDATED',
      'LOCATION_GROUP_CREATED',
      'LOCATION_GROUP_UPDATED',
      'LOCATION_GROUP_DELETED',
      'ADDRESS_GROUP_CREATED',
      'ADDRESS_GROUP_UPDATED',
      'ADDRESS_GROUP_DELETED',
      'EXPORT_REQUESTED',
      'EXPORT_COMPLETED',
      'EXPORT_FAILED',
      'CLIENT_REGISTERED',
      'CLIENT_UPDATED',
      'CLIENT_SECRET_ROTATED',
      'CLIENT_DISABLED',
      'WEBHOOK_ENDPOINT_DISABLED',
    ]);
  });

  it('given every event type, when checked, then it is {RESOURCE}_{ACTION} on a declared topic', () => {
    const topicNames = ALL_TOPICS.map((topic) => topic.name);
    for (const type of EVENT_TYPES) {
      expect(type).toMatch(/^[A-Z]+(_[A-Z]+)+$/);
      expect(topicNames).toContain(EVENT_CATALOG[type].topic);
    }
  });

  it('given the location events, when routed, then both go to location.events.v1', () => {
    expect([EVENT_CATALOG.LOCATION_CREATED.topic, EVENT_CATALOG.LOCATION_UPDATED.topic]).toEqual([
      'location.events.v1',
      'location.events.v1',
    ]);
  });
});

describe('eventSchema', () => {
  it('given a LOCATION_CREATED event, when validated, then it is accepted', () => {
    expect(issuesOf(eventSchema('LOCATION_CREATED'), created)).toEqual([]);
  });

  it('given a LOCATION_UPDATED event with modifiedFields, when validated, then it is accepted', () => {
    expect(issuesOf(eventSchema('LOCATION_UPDATED'), updated)).toEqual([]);
  });

  it('given a LOCATION_UPDATED event without modifiedFields, when validated, then it is accepted (optional in OAF-100)', () => {
    const { modifiedFields: _modifiedFields, ...withoutModifiedFields } = updated;
    expect(issuesOf(eventSchema('LOCATION_UPDATED'), withoutModifiedFields)).toEqual([]);
  });

  it('given modifiedFields on LOCATION_CREATED, when validated, then it is not allowed (not a field of the type)', () => {
    expect(issuesOf(eventSchema('LOCATION_CREATED'), { ...created, modifiedFields: {} })).toEqual([
      { field: 'modifiedFields', rule: 'unknownField', message: 'unknown field "modifiedFields"' },
    ]);
  });

  it('given a broken envelope, when validated, then every envelope field is named', () => {
    const broken = {
      id: 'e-1',
      type: 'LOCATION_UPDATED',
      timestamp: '2024-03-01T08:30:00+01:00',
      source: '',
      data: sampleLocation,
    };
    expect(issuesOf(eventSchema('LOCATION_CREATED'), broken)).toEqual([
      { field: 'id', rule: 'uuid', message: 'id must be a UUID' },
      { field: 'type', rule: 'enum', message: 'type must be LOCATION_CREATED' },
      {
        field: 'timestamp',
        rule: 'dateTime',
        message: 'timestamp must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
      },
      { field: 'source', rule: 'nonEmpty', message: 'source must not be empty' },
    ]);
  });

  it('given data that is not a full Location, when validated, then the data path is named', () => {
    const { geography: _geography, ...withoutGeography } = sampleLocation;
    expect(issuesOf(eventSchema('LOCATION_CREATED'), { ...created, data: withoutGeography })).toEqual([
      { field: 'data.geography', rule: 'required', message: 'data.geography is required' },
    ]);
  });

  it('given the types, when a LOCATION_CREATED event carries modifiedFields, then it does not compile', () => {
    // @ts-expect-error modifiedFields exists only on LOCATION_UPDATED
    const invalid: EventOf<'LOCATION_CREATED'> = { ...created, modifiedFields: {} };
    expect(invalid.type).toBe('LOCATION_CREATED');
  });

  it('given the same type twice, when asked, then the same schema is returned', () => {
    expect(eventSchema('EXPORT_FAILED')).toBe(eventSchema('EXPORT_FAILED'));
  });
});

describe('validateEvent', () => {
  it.each<[string, unknown]>([
    ['LOCATION_GROUP_DELETED', { id: envelope.id, name: 'Phase 1', type: 'OTHER' }],
    ['ADDRESS_GROUP_CREATED', { id: envelope.id, name: 'Tower A', type: 'MDU_COMPLEX' }],
    [
      'EXPORT_REQUESTED',
      { requestId: envelope.id, clientId: 'rsp-acme', format: 'csv', modifiedSince: '2024-01-01T00:00:00Z' },
    ],
    [
      'EXPORT_FAILED',
      {
        clientId: 'rsp-acme',
        notification: {
          requestId: envelope.id,
          status: 'FAILED',
          error: { code: 'EXPORT_GENERATION_FAILED', message: 'x' },
        },
      },
    ],
    ['CLIENT_DISABLED', { ...client, enabled: false }],
  ])('given a valid %s event, when validated, then it is accepted', (type, data) => {
    expect(validateEvent({ ...envelope, type, data })).toEqual({ ok: true, value: { ...envelope, type, data } });
  });

  it('given an unknown type, when validated, then the known types are listed', () => {
    const result = validateEvent({ ...envelope, type: 'LOCATION_DELETED', data: {} });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues).toEqual([
      { field: 'type', rule: 'enum', message: `type must be one of ${EVENT_TYPES.join(', ')}` },
    ]);
  });

  it('given an EXPORT_COMPLETED event whose notification says FAILED, when validated, then the status is named', () => {
    const data = { clientId: 'rsp-acme', notification: { requestId: envelope.id, status: 'FAILED' } };
    const result = validateEvent({ ...envelope, type: 'EXPORT_COMPLETED', data });
    expect(!result.ok && result.issues).toEqual([
      { field: 'data.notification.status', rule: 'enum', message: 'data.notification.status must be COMPLETED' },
      { field: 'data.notification.exportUrl', rule: 'required', message: 'data.notification.exportUrl is required' },
      {
        field: 'data.notification.downloadExpiresAt',
        rule: 'required',
        message: 'data.notification.downloadExpiresAt is required',
      },
      {
        field: 'data.notification.exportTimestamp',
        rule: 'required',
        message: 'data.notification.exportTimestamp is required',
      },
      { field: 'data.notification.totalCount', rule: 'required', message: 'data.notification.totalCount is required' },
    ]);
  });

  it('given client data of an admin client without webhook, when validated, then it is accepted', () => {
    const { webhookSecretSealed: _sealed, webhookUrl: _url, ...admin } = client;
    const data = { ...admin, kind: 'ADMIN', scopes: ['auth:admin'] };
    expect(validateEvent({ ...envelope, type: 'CLIENT_REGISTERED', data }).ok).toBe(true);
  });

  it('given client data with the webhook secret in clear, when validated, then the field is refused', () => {
    const { webhookSecretSealed: _sealed, ...rest } = client;
    const result = validateEvent({
      ...envelope,
      type: 'CLIENT_SECRET_ROTATED',
      data: { ...rest, webhookSecret: 'whsec_abc' },
    });
    expect(!result.ok && result.issues).toEqual([
      { field: 'data.webhookSecret', rule: 'unknownField', message: 'unknown field "data.webhookSecret"' },
    ]);
  });

  it.each([
    ['plain text', 'whsec_abc'],
    ['base64url', Buffer.from([0xfb, 0xff, 0xfe, 0x01]).toString('base64url')],
    ['unpadded base64', 'AQIDBA'],
    ['empty', ''],
  ])('given a sealed webhook secret that is %s, when validated, then its format is refused', (_, sealed) => {
    const result = validateEvent({
      ...envelope,
      type: 'CLIENT_UPDATED',
      data: { ...client, webhookSecretSealed: sealed },
    });
    expect(!result.ok && result.issues).toEqual([
      { field: 'data.webhookSecretSealed', rule: 'format', message: 'data.webhookSecretSealed has an invalid format' },
    ]);
  });

  it('given client data without kind, when validated, then kind is required', () => {
    const { kind: _kind, ...withoutKind } = client;
    const result = validateEvent({ ...envelope, type: 'CLIENT_REGISTERED', data: withoutKind });
    expect(!result.ok && result.issues).toEqual([
      { field: 'data.kind', rule: 'required', message: 'data.kind is required' },
    ]);
  });

  it('given something that is not an object, when validated, then the value must be an object', () => {
    expect(validateEvent('LOCATION_CREATED')).toEqual({
      ok: false,
      issues: [{ field: '', rule: 'type', message: 'value must be an object' }],
    });
  });
});

describe('eventEnvelopeSchema', () => {
  it('given a custom payload schema, when an envelope is built, then it validates that payload', () => {
    const schema = eventEnvelopeSchema('PING', z.object({ n: z.number() }).strict());
    expect(issuesOf(schema, { ...envelope, type: 'PING', data: { n: 1 } })).toEqual([]);
    expect(issuesOf(schema, { ...envelope, type: 'PING', data: { n: 'x' }, extra: 1 })).toEqual([
      { field: 'data.n', rule: 'type', message: 'data.n must be a number' },
      { field: 'extra', rule: 'unknownField', message: 'unknown field "extra"' },
    ]);
  });
});
