import type { EntityManager } from 'typeorm';
import type { BulkAppend, BulkEventAppender } from './bulk-event.appender';
import type { EventAppender } from './event.appender';
import { EventStoreTransaction } from './event-store.transaction';
import type { StreamAppend } from './event-store.types';
import { scriptedManager } from './testing/test-doubles';

function storedRow(id: string, version: number) {
  return {
    stream_id: id,
    stream_type: 'location',
    version,
    deleted: false,
    payload: JSON.stringify({ data: { id } }),
  };
}

function transactionOn(
  manager: EntityManager,
  appender = {} as EventAppender,
  bulk = {} as BulkEventAppender,
  writable = true,
) {
  return new EventStoreTransaction(manager, appender, bulk, writable);
}

/** Appenders that record what they were handed. */
function recordingAppenders() {
  const calls: unknown[][] = [];
  const appender = { append: (...args: unknown[]) => Promise.resolve(calls.push(['append', ...args])) };
  const bulkAppender = { write: (...args: unknown[]) => Promise.resolve(calls.push(['bulk', ...args])) };
  return {
    calls,
    appender: appender as unknown as EventAppender,
    bulkAppender: bulkAppender as unknown as BulkEventAppender,
  };
}

const anAppend: StreamAppend = {
  streamId: 'a',
  streamType: 'location',
  fromVersion: 0,
  events: [{ type: 'LOCATION_CREATED', data: {} }],
  index: {},
};

describe('EventStoreTransaction.load', () => {
  it('given streams, when loaded with locks, then their state rows are locked in id order and read at those versions', async () => {
    const { manager, queries } = scriptedManager(
      [
        { stream_id: 'a', version: 2 },
        { stream_id: 'b', version: 5 },
      ],
      [storedRow('a', 2), storedRow('b', 5)],
    );

    const loaded = await transactionOn(manager).load(['b', 'a', 'new']);

    expect([...loaded.keys()]).toEqual(['a', 'b']);
    expect(loaded.get('b')).toEqual({
      streamId: 'b',
      streamType: 'location',
      version: 5,
      deleted: false,
      data: { id: 'b' },
    });
    expect(queries[0]!.sql).toMatch(
      /FROM aggregate_state WHERE stream_id = ANY\(\$1::uuid\[\]\) ORDER BY stream_id FOR UPDATE$/,
    );
    expect(queries[0]!.parameters).toEqual([['b', 'a', 'new']]);
    expect(queries[1]!.parameters).toEqual([
      ['a', 'b'],
      [2, 5],
    ]);
  });

  it('given none of the streams exists, when loaded with locks, then only the lock statement is sent', async () => {
    const { manager, queries } = scriptedManager([]);

    expect((await transactionOn(manager).load(['a'])).size).toBe(0);
    expect(queries).toHaveLength(1);
  });

  it('given lock: false, when loaded, then one read without FOR UPDATE is sent', async () => {
    const { manager, queries } = scriptedManager([storedRow('a', 1)]);

    const loaded = await transactionOn(manager).load(['a'], { lock: false });

    expect(loaded.get('a')?.version).toBe(1);
    expect(queries).toHaveLength(1);
    expect(queries[0]!.sql).not.toMatch(/FOR UPDATE/);
  });

  it('given no ids, when loaded, then nothing is sent', async () => {
    const { manager, queries } = scriptedManager();

    expect((await transactionOn(manager).load([])).size).toBe(0);
    expect(queries).toEqual([]);
  });
});

describe('EventStoreTransaction.existingGroups', () => {
  it('given group ids of both kinds, when checked, then each id is asked once, FOR SHARE, and sorted by kind', async () => {
    const { manager, queries } = scriptedManager([
      { stream_id: 'g1', stream_type: 'locationGroup' },
      { stream_id: 'g2', stream_type: 'addressGroup' },
    ]);

    const existing = await transactionOn(manager).existingGroups({
      locationGroupIds: ['g1', 'g2'],
      addressGroupIds: ['g2', 'g3'],
    });

    expect(existing).toEqual({ locationGroups: new Set(['g1']), addressGroups: new Set(['g2']) });
    expect(queries[0]!.parameters).toEqual([['g1', 'g2', 'g3']]);
    expect(queries[0]!.sql).toMatch(/NOT deleted\s+ORDER BY stream_id FOR SHARE$/);
  });

  it('given lock: false, when checked, then the rows are not locked', async () => {
    const { manager, queries } = scriptedManager([]);

    await transactionOn(manager).existingGroups({ locationGroupIds: ['g1'], addressGroupIds: [] }, { lock: false });

    expect(queries[0]!.sql).not.toMatch(/FOR SHARE/);
  });

  it('given no group ids, when checked, then nothing is sent', async () => {
    const { manager, queries } = scriptedManager();

    expect(await transactionOn(manager).existingGroups({ locationGroupIds: [], addressGroupIds: [] })).toEqual({
      locationGroups: new Set(),
      addressGroups: new Set(),
    });
    expect(queries).toEqual([]);
  });
});

describe('EventStoreTransaction.referencingLocations', () => {
  it.each([
    ['locationGroup', 'location_group_id'],
    ['addressGroup', 'address_group_id'],
  ] as const)('given a %s, when counted, then locations are counted by %s', async (kind, column) => {
    const { manager, queries } = scriptedManager([{ n: 4 }]);

    expect(await transactionOn(manager).referencingLocations(kind, 'g1')).toBe(4);
    expect(queries[0]!.sql).toContain(`AND ${column} = $1`);
    expect(queries[0]!.parameters).toEqual(['g1']);
  });
});

describe('EventStoreTransaction appends', () => {
  it('hands appends to the appenders with its own manager', async () => {
    const { manager } = scriptedManager();
    const { calls, appender, bulkAppender } = recordingAppenders();
    const transaction = transactionOn(manager, appender, bulkAppender);
    const context = { timestamp: '2024-01-15T10:00:00Z' };
    const bulk = { eventIds: [] } as unknown as BulkAppend;

    await transaction.append([], context);
    await transaction.appendBulk(bulk);

    expect(calls).toEqual([
      ['append', manager, [], context],
      ['bulk', manager, bulk],
    ]);
  });

  it('given a reader (no transaction), when events are appended, then it refuses and nothing is written', async () => {
    const { manager } = scriptedManager();
    const { calls, appender, bulkAppender } = recordingAppenders();
    const reader = transactionOn(manager, appender, bulkAppender, false);
    const bulk = { eventIds: ['e1'], context: { timestamp: '2024-01-15T10:00:00.000Z' } } as unknown as BulkAppend;

    await expect(reader.append([anAppend], { timestamp: '2024-01-15T10:00:00.000Z' })).rejects.toThrow(
      /EventStore.transaction/,
    );
    await expect(reader.appendBulk(bulk)).rejects.toThrow(/EventStore.transaction/);
    expect(calls).toEqual([]);
  });
});
