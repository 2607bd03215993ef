import { EventEnvelopeFactory, kafkaHeadersOf } from './event-envelope.factory';
import type { StreamAppend } from './event-store.types';
import { SequentialIds } from './testing/test-doubles';

const created: StreamAppend = {
  streamId: 'location-a',
  streamType: 'location',
  fromVersion: 0,
  events: [{ type: 'LOCATION_CREATED', data: { id: 'location-a' } }],
  index: {},
};
const updatedTwice: StreamAppend = {
  streamId: 'location-b',
  streamType: 'location',
  fromVersion: 4,
  events: [
    { type: 'LOCATION_UPDATED', data: { id: 'location-b', notes: 'x' }, modifiedFields: { notes: 'x' } },
    { type: 'LOCATION_UPDATED', data: { id: 'location-b', notes: 'y' }, modifiedFields: { notes: 'y' } },
  ],
  index: {},
};

describe('EventEnvelopeFactory', () => {
  const timestamp = '2024-01-15T10:00:00.000Z';

  it('given appends of two streams, when enveloped, then events keep their order and are numbered after fromVersion', () => {
    const events = [
      ...new EventEnvelopeFactory(new SequentialIds(), 'location-command').envelopes(
        [created, updatedTwice],
        timestamp,
      ),
    ];

    expect(events.map(({ append, version, id, type }) => [append.streamId, version, id, type])).toEqual([
      ['location-a', 1, 'event-1', 'LOCATION_CREATED'],
      ['location-b', 5, 'event-2', 'LOCATION_UPDATED'],
      ['location-b', 6, 'event-3', 'LOCATION_UPDATED'],
    ]);
  });

  it('given an event, when enveloped, then the payload is the OAF-100 envelope with its id, timestamp and source', () => {
    const [first, second] = new EventEnvelopeFactory(new SequentialIds(), 'location-command').envelopes(
      [created, updatedTwice],
      timestamp,
    );

    expect(JSON.parse(first!.payload)).toEqual({
      id: 'event-1',
      type: 'LOCATION_CREATED',
      timestamp,
      source: 'location-command',
      data: { id: 'location-a' },
    });
    expect(JSON.parse(second!.payload)).toMatchObject({ id: 'event-2', modifiedFields: { notes: 'x' } });
  });

  it('given a stream without events, when enveloped, then it yields nothing', () => {
    const factory = new EventEnvelopeFactory(new SequentialIds(), 'location-command');

    expect([...factory.envelopes([{ ...created, events: [] }], timestamp)]).toEqual([]);
  });
});

describe('kafkaHeadersOf', () => {
  it('given a version and a correlation id, when built, then both headers are set', () => {
    expect(kafkaHeadersOf(3, 'request-1')).toEqual({ 'lx-aggregate-version': '3', 'lx-correlation-id': 'request-1' });
  });

  it('given no correlation id, when built, then only the version header is set', () => {
    expect(kafkaHeadersOf(1, undefined)).toEqual({ 'lx-aggregate-version': '1' });
  });
});
