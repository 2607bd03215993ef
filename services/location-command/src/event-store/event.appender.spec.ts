import type { EntityManager } from 'typeorm';
import type { Outbox, OutboxMessage } from '@lx/messaging';
import { AggregateStateWriter } from './aggregate-state.writer';
import { EventAppender, eventInsertOf } from './event.appender';
import { EventEnvelopeFactory } from './event-envelope.factory';
import type { StreamAppend } from './event-store.types';
import { scriptedManager, SequentialIds } from './testing/test-doubles';

const location: StreamAppend = {
  streamId: 'location-a',
  streamType: 'location',
  fromVersion: 1,
  events: [{ type: 'LOCATION_UPDATED', data: { id: 'location-a' }, modifiedFields: { notes: 'x' } }],
  index: { serviceabilityStatus: 'ACTIVE' },
};
const group: StreamAppend = {
  streamId: 'group-1',
  streamType: 'locationGroup',
  fromVersion: 0,
  events: [{ type: 'LOCATION_GROUP_CREATED', data: { id: 'group-1' } }],
  index: {},
};
const context = { timestamp: '2024-01-15T10:00:00.000Z', correlationId: 'request-1' };

function appenderWithFakes() {
  const { manager, queries } = scriptedManager();
  const outboxed: OutboxMessage[][] = [];
  const outbox = {
    append: (_manager: EntityManager, messages: readonly OutboxMessage[]) => {
      outboxed.push([...messages]);
      return Promise.resolve();
    },
  } as unknown as Outbox;
  const appender = new EventAppender(
    new EventEnvelopeFactory(new SequentialIds(), 'location-command'),
    new AggregateStateWriter(),
    outbox,
  );
  return { appender, manager, queries, outboxed };
}

describe('eventInsertOf', () => {
  it('given enveloped events, when built, then the column arrays and the outbox messages follow the event order', () => {
    const events = [
      ...new EventEnvelopeFactory(new SequentialIds(), 'lc').envelopes([location, group], context.timestamp),
    ];

    const { parameters, messages } = eventInsertOf(events, context);

    expect(parameters).toEqual([
      ['location-a', 'group-1'],
      ['location', 'locationGroup'],
      [2, 1],
      ['event-1', 'event-2'],
      ['LOCATION_UPDATED', 'LOCATION_GROUP_CREATED'],
      [events[0]!.payload, events[1]!.payload],
      context.timestamp,
    ]);
    expect(messages).toEqual([
      {
        topic: 'location.events.v1',
        key: 'location-a',
        value: events[0]!.payload,
        headers: { 'lx-aggregate-version': '2', 'lx-correlation-id': 'request-1' },
      },
      {
        topic: 'location-group.events.v1',
        key: 'group-1',
        value: events[1]!.payload,
        headers: { 'lx-aggregate-version': '1', 'lx-correlation-id': 'request-1' },
      },
    ]);
  });
});

describe('EventAppender', () => {
  it('given appends, when appended, then events, state rows and outbox messages are written in that order', async () => {
    const { appender, manager, queries, outboxed } = appenderWithFakes();

    await appender.append(manager, [location, group], context);

    expect(queries.map((query) => query.sql.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'INSERT INTO events',
      'INSERT INTO aggregate_state',
    ]);
    expect(queries[0]!.parameters[3]).toEqual(['event-1', 'event-2']);
    expect(queries[1]!.parameters[2]).toEqual([2, 1]);
    expect(outboxed.map((messages) => messages.map((message) => message.key))).toEqual([['location-a', 'group-1']]);
  });

  it('given streams without events, when appended, then nothing is written', async () => {
    const { appender, manager, queries, outboxed } = appenderWithFakes();

    await appender.append(manager, [{ ...location, events: [] }], context);

    expect(queries).toEqual([]);
    expect(outboxed).toEqual([]);
  });
});
