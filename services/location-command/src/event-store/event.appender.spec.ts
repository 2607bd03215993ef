import { AggregateStateWriter } from './aggregate-state.writer';
import { EventAppender, eventInsertOf } from './event.appender';
import { StreamOrderConflictError } from './event-store.errors';
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

/** An appender on a manager whose state upsert reports `written` rows (by default every row). */
function appenderWithFakes(written = 2) {
  const { manager, queries } = scriptedManager([{ written }], []);
  const appender = new EventAppender(
    new EventEnvelopeFactory(new SequentialIds(), 'location-command'),
    new AggregateStateWriter(),
  );
  return { appender, manager, queries };
}

describe('eventInsertOf', () => {
  it('given enveloped events, when built, then the column arrays follow the event order, with time and correlation', () => {
    const events = [
      ...new EventEnvelopeFactory(new SequentialIds(), 'lc').envelopes([location, group], context.timestamp),
    ];

    expect(eventInsertOf(events, context)).toEqual([
      ['location-a', 'group-1'],
      ['location', 'locationGroup'],
      [2, 1],
      ['event-1', 'event-2'],
      ['LOCATION_UPDATED', 'LOCATION_GROUP_CREATED'],
      [events[0]!.payload, events[1]!.payload],
      context.timestamp,
      'request-1',
      // No trace context: tracing is off in this test (the trace-tree integration test covers it on).
      null,
    ]);
  });

  it('given a write without a correlation id, when built, then the column is null', () => {
    const events = [...new EventEnvelopeFactory(new SequentialIds(), 'lc').envelopes([group], context.timestamp)];

    expect(eventInsertOf(events, { timestamp: context.timestamp }).at(-2)).toBeNull();
  });
});

describe('EventAppender', () => {
  it('given appends, when appended, then state rows and events are written in that order', async () => {
    const { appender, manager, queries } = appenderWithFakes();

    await appender.append(manager, [location, group], context);

    expect(queries.map((query) => query.sql.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'WITH written AS',
      'INSERT INTO events',
    ]);
    expect(queries[0]!.parameters[2]).toEqual([2, 1]);
    expect(queries[1]!.parameters[3]).toEqual(['event-1', 'event-2']);
    expect(queries[1]!.sql).toContain('correlation_id');
  });

  it('given a stream last written by a later transaction, when appended, then StreamOrderConflictError', async () => {
    const { appender, manager } = appenderWithFakes(1);

    await expect(appender.append(manager, [location, group], context)).rejects.toBeInstanceOf(StreamOrderConflictError);
  });

  it('given streams without events, when appended, then nothing is written', async () => {
    const { appender, manager, queries } = appenderWithFakes();

    await appender.append(manager, [{ ...location, events: [] }], context);

    expect(queries).toEqual([]);
  });
});
