import { AggregateStateWriter, aggregateStateParameters } from './aggregate-state.writer';
import { StreamOrderConflictError } from './event-store.errors';
import type { StreamAppend } from './event-store.types';
import { scriptedManager } from './testing/test-doubles';

const event = { type: 'LOCATION_UPDATED' as const, data: {} };

const appends: StreamAppend[] = [
  {
    streamId: 'location-a',
    streamType: 'location',
    fromVersion: 2,
    events: [event, event],
    index: { locationGroupId: 'group-1', addressGroupId: 'group-2', serviceabilityStatus: 'ACTIVE' },
  },
  { streamId: 'unchanged', streamType: 'location', fromVersion: 7, events: [], index: {} },
  { streamId: 'group-1', streamType: 'locationGroup', fromVersion: 0, events: [event], index: { deleted: true } },
];

describe('aggregateStateParameters', () => {
  it('given streams with and without events, when built, then only those with events get a row at their new version', () => {
    expect(aggregateStateParameters(appends)).toEqual({
      streamIds: ['location-a', 'group-1'],
      streamTypes: ['location', 'locationGroup'],
      versions: [4, 1],
      deleted: [false, true],
      locationGroupIds: ['group-1', null],
      addressGroupIds: ['group-2', null],
      serviceabilityStatuses: ['ACTIVE', null],
    });
  });
});

describe('AggregateStateWriter', () => {
  it('given appends, when written, then one upsert carries the column arrays and the timestamp', async () => {
    const { manager, queries } = scriptedManager([{ written: 2 }]);

    await new AggregateStateWriter().write(manager, appends, '2024-01-15T10:00:00Z');

    expect(queries).toHaveLength(1);
    expect(queries[0]!.sql).toMatch(/INSERT INTO aggregate_state[\s\S]*ON CONFLICT \(stream_id\) DO UPDATE/);
    expect(queries[0]!.sql).toMatch(/WHERE aggregate_state.last_tx <= EXCLUDED.last_tx/);
    expect(queries[0]!.parameters).toEqual([
      ['location-a', 'group-1'],
      ['location', 'locationGroup'],
      [4, 1],
      [false, true],
      ['group-1', null],
      ['group-2', null],
      ['ACTIVE', null],
      '2024-01-15T10:00:00Z',
    ]);
  });

  it('given a row the transaction order guard refused, when written, then StreamOrderConflictError', async () => {
    const { manager } = scriptedManager([{ written: 1 }]);

    await expect(new AggregateStateWriter().write(manager, appends, '2024-01-15T10:00:00Z')).rejects.toBeInstanceOf(
      StreamOrderConflictError,
    );
  });

  it('given no stream with events, when written, then nothing is sent', async () => {
    const { manager, queries } = scriptedManager();

    await new AggregateStateWriter().write(manager, [appends[1]!], '2024-01-15T10:00:00Z');

    expect(queries).toEqual([]);
  });
});
