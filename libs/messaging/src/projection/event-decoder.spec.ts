import { randomUUID } from 'node:crypto';
import { KAFKA_HEADERS, type Location, validateEvent } from '@lx/contracts';
import type { IncomingMessage } from '../event-bus';
import { decodeMessage, wellFormedLocationEvent } from './event-decoder';

/** A Location using every field, so the hand check meets every part of the schema. */
const sampleLocation: Location = {
  id: '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11',
  createdAt: '2024-01-15T10:00:00Z',
  updatedAt: '2024-03-01T08:30:00.250Z',
  notes: 'Gate code at the front desk',
  locationGroupId: '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50',
  geography: { country: 'US', region: 'CO', locality: 'Denver', postalCode: '80202' },
  address: {
    streetNumber: '1600',
    streetName: 'Glenarm',
    streetDirection: 'N',
    streetType: 'PLACE',
    streetSuffix: 'ROAD',
    subunitType: 'APT',
    subunitIdentifier: '4B',
    addressGroupId: '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
  },
  coordinates: { latitude: 39.7447, longitude: -104.9903 },
  fiberAccessDetails: {
    circuitId: 'CIR-1001',
    fda: 'FDA-12',
    fdh: 'FDH-3',
    splitterPort: '1-4',
    layer2AccessProtocol: 'XGS-PON',
    dropStatus: 'UNDERGROUND_COMPLETE',
    serviceability: { status: 'ACTIVE', availableDate: '2024-02-29' },
  },
  customFields: { tier: 'gold', floors: 12, mdu: true, tags: ['fiber', 2, false] },
};

const locationTypes = new Set(['LOCATION_CREATED', 'LOCATION_UPDATED'] as const);
const created = {
  id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  type: 'LOCATION_CREATED',
  timestamp: '2024-03-01T08:30:00.250Z',
  source: 'location-command',
  data: sampleLocation,
};

function message(value: unknown, overrides: Partial<IncomingMessage> = {}): IncomingMessage {
  return {
    topic: 'location.events.v1',
    partition: 2,
    offset: '41',
    key: sampleLocation.id,
    value: value === null ? null : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    headers: { [KAFKA_HEADERS.aggregateVersion]: '7' },
    ...overrides,
  };
}

describe('decodeMessage', () => {
  it('given a valid location event with its version, when decoded, then it is an event at that version and position', () => {
    expect(decodeMessage(message(created), locationTypes)).toEqual({
      kind: 'event',
      event: { event: created, version: 7, topic: 'location.events.v1', partition: 2, offset: '41' },
    });
  });

  it('given a correlation id header, when decoded, then the event carries it; without one, it has none', () => {
    const withHeader = message(created, {
      headers: { [KAFKA_HEADERS.aggregateVersion]: '7', [KAFKA_HEADERS.correlationId]: 'corr-9' },
    });
    expect(decodeMessage(withHeader, locationTypes)).toStrictEqual({
      kind: 'event',
      event: {
        event: created,
        version: 7,
        topic: 'location.events.v1',
        partition: 2,
        offset: '41',
        correlationId: 'corr-9',
      },
    });
    const decoded = decodeMessage(message(created), locationTypes);
    expect(decoded.kind === 'event' && Object.keys(decoded.event)).toEqual([
      'event',
      'version',
      'topic',
      'partition',
      'offset',
    ]);
  });

  it('given a W3C traceparent header, when decoded, then the event carries it for the projection to store', () => {
    const traceParent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const withHeader = message(created, {
      headers: { [KAFKA_HEADERS.aggregateVersion]: '7', traceparent: traceParent },
    });
    expect(decodeMessage(withHeader, locationTypes)).toStrictEqual({
      kind: 'event',
      event: { event: created, version: 7, topic: 'location.events.v1', partition: 2, offset: '41', traceParent },
    });
  });

  it('given a valid event of a type the projection does not use, when decoded, then it is ignored', () => {
    const group = { ...created, type: 'LOCATION_GROUP_CREATED', data: { id: randomUUID(), name: 'G', type: 'OTHER' } };
    expect(decodeMessage(message(group, { topic: 'location-group.events.v1' }), locationTypes)).toEqual({
      kind: 'ignored',
      type: 'LOCATION_GROUP_CREATED',
    });
  });

  it.each<[string, IncomingMessage, string]>([
    ['no value', message(null), 'the message has no value'],
    ['not JSON', message('{"id":'), 'the value is not JSON'],
    ['no timestamp', message({ ...created, timestamp: undefined }), 'timestamp is required'],
    ['an unknown type', message({ ...created, type: 'LOCATION_DELETED' }), 'type must be one of'],
    [
      'an invalid location',
      message({ ...created, data: { ...sampleLocation, geography: undefined } }),
      'data.geography is required',
    ],
    [
      'the wrong topic',
      message(created, { topic: 'address-group.events.v1' }),
      'LOCATION_CREATED events belong on location.events.v1, not on address-group.events.v1',
    ],
    ['no version header', message(created, { headers: {} }), 'header lx-aggregate-version must be a positive integer'],
    ['version 0', message(created, { headers: { [KAFKA_HEADERS.aggregateVersion]: '0' } }), 'positive integer'],
    ['version 1.5', message(created, { headers: { [KAFKA_HEADERS.aggregateVersion]: '1.5' } }), 'positive integer'],
    [
      'a version beyond int4',
      message(created, { headers: { [KAFKA_HEADERS.aggregateVersion]: '2147483648' } }),
      'positive integer',
    ],
  ])('given %s, when decoded, then it is invalid with the reason', (_case, input, reason) => {
    const decoded = decodeMessage(input, locationTypes);
    expect(decoded.kind).toBe('invalid');
    expect(decoded.kind === 'invalid' && decoded.reason).toContain(reason);
  });
  it('given the highest int4 version, with ten digits, when decoded, then it is an event at that version', () => {
    const decoded = decodeMessage(
      message(created, { headers: { [KAFKA_HEADERS.aggregateVersion]: '2147483647' } }),
      locationTypes,
    );
    expect(decoded.kind === 'event' && decoded.event.version).toBe(2_147_483_647);
  });

  it('given an empty value, when decoded, then it is invalid for having no value', () => {
    expect(decodeMessage(message(null, { value: Buffer.alloc(0) }), locationTypes)).toEqual({
      kind: 'invalid',
      reason: 'the message has no value',
    });
  });

  it('given an event with several issues, when decoded, then the reason lists them all, separated by semicolons', () => {
    const { timestamp: _timestamp, source: _source, ...bare } = created;
    expect(decodeMessage(message(bare), locationTypes)).toEqual({
      kind: 'invalid',
      reason: 'timestamp is required; source is required',
    });
  });

  it('given a valid location event with fields in its own order, when decoded, then the event keeps the producer order', () => {
    const reversed = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).reverse());
    const producerOrder = reversed({ ...created, data: reversed({ ...sampleLocation }) });
    const decoded = decodeMessage(message(producerOrder), locationTypes);
    expect(decoded.kind).toBe('event');
    expect(decoded.kind === 'event' && JSON.stringify(decoded.event.event)).toBe(JSON.stringify(producerOrder));
  });

  describe('the reason, bounded to 1000 characters', () => {
    const prefix = 'LOCATION_CREATED events belong on location.events.v1, not on ';
    const onTopic = (length: number) => message(created, { topic: 'x'.repeat(length - prefix.length) });

    it('given a reason of exactly 1000 characters, when decoded, then it is kept whole', () => {
      expect(decodeMessage(onTopic(1000), locationTypes)).toEqual({
        kind: 'invalid',
        reason: prefix + 'x'.repeat(1000 - prefix.length),
      });
    });

    it('given a reason of 1001 characters, when decoded, then it is cut to 1000 and marked with an ellipsis', () => {
      expect(decodeMessage(onTopic(1001), locationTypes)).toEqual({
        kind: 'invalid',
        reason: `${prefix}${'x'.repeat(1000 - prefix.length)}…`,
      });
    });
  });
});

describe('wellFormedLocationEvent', () => {
  const updated = {
    ...created,
    type: 'LOCATION_UPDATED',
    modifiedFields: { notes: 'x', fiberAccessDetails: { serviceability: null } },
  };
  const minimal = {
    ...created,
    data: {
      id: sampleLocation.id,
      createdAt: '2024-01-01T00:00:00Z',
      updatedAt: '2024-01-01T00:00:00Z',
      geography: sampleLocation.geography,
      coordinates: { latitude: 1, longitude: 2 },
    },
  };

  it.each([
    ['a complete LOCATION_CREATED', created],
    ['a LOCATION_UPDATED with modifiedFields', updated],
    ['a minimal location', minimal],
  ])('given %s, when checked, then it is accepted as validateEvent accepts it', (_case, event) => {
    expect(validateEvent(event).ok).toBe(true);
    expect(wellFormedLocationEvent(event)).toBe(event);
  });

  it.each<[string, unknown]>([
    ['an extra envelope field', { ...created, extra: 1 }],
    ['modifiedFields on a create', { ...created, modifiedFields: {} }],
    ['modifiedFields null', { ...updated, modifiedFields: null }],
    ['modifiedFields naming an unknown field', { ...updated, modifiedFields: { colour: 'red' } }],
    ['an empty source', { ...created, source: ' ' }],
    ['a timestamp with an offset', { ...created, timestamp: '2024-03-01T08:30:00+01:00' }],
    ['a timestamp on 30 February', { ...created, timestamp: '2024-02-30T08:30:00Z' }],
    ['an event id that is no UUID', { ...created, id: 'e-1' }],
    ['a location id that is no UUID', { ...created, data: { ...sampleLocation, id: 'x' } }],
    ['a createdAt without Z', { ...created, data: { ...sampleLocation, createdAt: '2024-01-15T10:00:00' } }],
    [
      'geography without postalCode',
      { ...created, data: { ...sampleLocation, geography: { country: 'US', region: 'CO', locality: 'D' } } },
    ],
    [
      'a latitude out of range',
      { ...created, data: { ...sampleLocation, coordinates: { latitude: 91, longitude: 0 } } },
    ],
    ['an unknown location field', { ...created, data: { ...sampleLocation, building: {} } }],
    [
      'a group event',
      { ...created, type: 'LOCATION_GROUP_CREATED', data: { id: randomUUID(), name: 'G', type: 'OTHER' } },
    ],
    ['an array', [created]],
    ['null', null],
    ['a string', 'LOCATION_CREATED'],
    ['a number source', { ...created, source: 7 }],
    ['no source', { ...created, source: undefined }],
    ['null data', { ...created, data: null }],
    ['a timestamp at hour 24', { ...created, timestamp: '2024-03-01T24:00:00Z' }],
    ['a timestamp with text after the Z', { ...created, timestamp: '2024-03-01T08:30:00Zulu' }],
    ['a timestamp with a date-time after a date', { ...created, timestamp: '2024-03-01T2024-03-01T08:30:00Z' }],
  ])('given %s, when checked, then it defers to validateEvent', (_case, event) => {
    expect(wellFormedLocationEvent(event)).toBeUndefined();
  });

  it('given a timestamp in the last second of a day, when checked, then it is accepted', () => {
    const late = { ...created, timestamp: '2024-03-01T23:59:59Z' };
    expect(wellFormedLocationEvent(late)).toBe(late);
  });

  it.each<[string, unknown]>([
    ['a function carrying the envelope', Object.assign(() => undefined, created)],
    ['a String object as timestamp', { ...created, timestamp: new String(created.timestamp) }],
    [
      'a String object as createdAt',
      { ...created, data: { ...sampleLocation, createdAt: new String('2024-01-15T10:00:00Z') } },
    ],
  ])(
    'given %s, which no JSON yields and validateEvent rejects, when checked, then it defers as well',
    (_case, event) => {
      expect(validateEvent(event).ok).toBe(false);
      expect(wellFormedLocationEvent(event)).toBeUndefined();
    },
  );

  it('given the cases it defers on, when validateEvent decides, then those that are invalid are rejected there', () => {
    expect(validateEvent({ ...created, timestamp: '2024-02-30T08:30:00Z' }).ok).toBe(false);
    expect(validateEvent({ ...updated, modifiedFields: { colour: 'red' } }).ok).toBe(false);
  });
});
