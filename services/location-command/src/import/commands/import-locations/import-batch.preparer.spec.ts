import type { Location } from '@lx/contracts';
import { aLocation, aLocationInput, type LocationOverrides } from '@lx/domain/testing';
import { type ExistingGroups, NO_GROUPS } from '@lx/domain';
import type { Clock } from '@lx/platform';
import type { BulkAppend, BulkEventAppender } from '../../../event-store/bulk-event.appender';
import type { EventStore } from '../../../event-store/event-store';
import type { EventStoreTransaction } from '../../../event-store/event-store.transaction';
import type { StoredStream, StreamAppend } from '../../../event-store/event-store.types';
import type { ImportRow } from '../../infrastructure/import-row';
import { decideImportBatch, ImportBatchPreparer, importRowIdsOf } from './import-batch.preparer';

const NOW = '2024-06-01T12:00:00.000Z';
const A = '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11';
const B = '5d7c2a1b-8e9f-4a3b-9c2d-1e0f3a4b5c6d';
const GROUP = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';

function row(line: number, id: string | undefined, body: unknown = aLocationInput(), issues: ImportRow['issues'] = []) {
  return { line, id, body, issues } satisfies ImportRow;
}

function storedLocation(id: string, version: number, overrides: LocationOverrides<Location> = {}): StoredStream {
  return { streamId: id, streamType: 'location', version, deleted: false, data: aLocation({ id, ...overrides }) };
}

function groups(...ids: string[]): ExistingGroups {
  return { locationGroups: new Set(ids), addressGroups: new Set(ids) };
}

describe('decideImportBatch', () => {
  it('given a new id in upper case, when decided, then the location is created under the lower-case id', () => {
    const decided = decideImportBatch([row(2, A.toUpperCase())], new Map(), NO_GROUPS, NOW);

    expect(decided.outcome).toEqual({ created: 1, updated: 0, unchanged: 0, rejections: [] });
    expect(decided.appends).toEqual([expect.objectContaining({ streamId: A, streamType: 'location', fromVersion: 0 })]);
    expect(decided.appends[0]!.events).toEqual([
      { type: 'LOCATION_CREATED', data: { id: A, createdAt: NOW, updatedAt: NOW, ...aLocationInput() } },
    ]);
  });

  it('given a row equal to the stored location, when decided, then it is unchanged and appends nothing', () => {
    const decided = decideImportBatch([row(2, A)], new Map([[A, storedLocation(A, 3)]]), NO_GROUPS, NOW);

    expect(decided.outcome).toEqual({ created: 0, updated: 0, unchanged: 1, rejections: [] });
    expect(decided.appends).toEqual([]);
  });

  it('given a changed row, when decided, then it updates from the stored version with its state index', () => {
    const body = aLocationInput({ notes: 'new', status: 'ACTIVE' });

    const decided = decideImportBatch([row(2, A, body)], new Map([[A, storedLocation(A, 3)]]), NO_GROUPS, NOW);

    expect(decided.outcome.updated).toBe(1);
    expect(decided.appends).toEqual([
      expect.objectContaining({
        streamId: A,
        fromVersion: 3,
        index: expect.objectContaining({ serviceabilityStatus: 'ACTIVE' }),
      }),
    ]);
    expect(decided.appends[0]!.events.map((event) => event.type)).toEqual(['LOCATION_UPDATED']);
  });

  it('given the same id twice, when decided, then the second row is decided on the state the first left', () => {
    const rows = [row(2, A, aLocationInput({ status: 'PLANNED' })), row(3, A, aLocationInput({ status: 'ACTIVE' }))];

    const decided = decideImportBatch(rows, new Map(), NO_GROUPS, NOW);

    expect(decided.outcome).toMatchObject({ created: 1, updated: 1 });
    expect(decided.appends).toHaveLength(1);
    expect(decided.appends[0]!.events.map((event) => event.type)).toEqual(['LOCATION_CREATED', 'LOCATION_UPDATED']);
  });

  it('given rows without a usable id or unreadable, when decided, then each is a VALIDATION_ERROR naming the problem', () => {
    const unreadable = [{ field: 'customFields', rule: 'json', message: 'customFields must be a JSON object' }];
    const rows = [row(2, undefined), row(3, 'not-a-uuid'), row(4, B, {}, unreadable)];

    const decided = decideImportBatch(rows, new Map(), NO_GROUPS, NOW);

    expect(decided.appends).toEqual([]);
    expect(decided.outcome.rejections).toEqual([
      expect.objectContaining({
        line: 2,
        code: 'VALIDATION_ERROR',
        details: { issues: [expect.objectContaining({ field: 'id', rule: 'required' })] },
      }),
      expect.objectContaining({
        line: 3,
        id: 'not-a-uuid',
        code: 'VALIDATION_ERROR',
        details: { issues: [expect.objectContaining({ field: 'id', rule: 'uuid' })] },
      }),
      expect.objectContaining({ line: 4, id: B, code: 'VALIDATION_ERROR', details: { issues: unreadable } }),
    ]);
  });

  it('given the id of a group, when decided, then it is the CONFLICT every location write answers', () => {
    const group: StoredStream = { streamId: A, streamType: 'locationGroup', version: 1, deleted: false, data: {} };

    const decided = decideImportBatch([row(2, A)], new Map([[A, group]]), NO_GROUPS, NOW);

    expect(decided.outcome.rejections).toEqual([
      {
        line: 2,
        id: A,
        code: 'CONFLICT',
        message: `${A} is the id of a locationGroup, not of a location`,
        details: { resourceId: A, resourceType: 'locationGroup' },
      },
    ]);
  });

  it('given a row that breaks a rule, when decided, then it is rejected with the rule code and the batch goes on', () => {
    const rows = [row(2, A, aLocationInput({ coordinates: { latitude: 91, longitude: 0 } })), row(3, B)];

    const decided = decideImportBatch(rows, new Map(), NO_GROUPS, NOW);

    expect(decided.outcome.rejections).toEqual([
      expect.objectContaining({ line: 2, id: A, code: 'INVALID_COORDINATES' }),
    ]);
    expect(decided.appends.map((append) => append.streamId)).toEqual([B]);
  });

  it('given written rows that reference groups, when decided, then those groups must exist at commit', () => {
    const body = aLocationInput({ locationGroupId: GROUP });

    const decided = decideImportBatch([row(2, A, body)], new Map(), groups(GROUP), NOW);

    expect([...decided.usedGroups]).toEqual([GROUP]);
    expect(decideImportBatch([row(2, A, body)], new Map(), NO_GROUPS, NOW).outcome.rejections).toEqual([
      expect.objectContaining({ code: 'INVALID_GROUP_REFERENCE' }),
    ]);
  });
});

describe('importRowIdsOf', () => {
  it('given rows, when collected, then only valid ids count, lower-case and once', () => {
    expect([
      ...importRowIdsOf([row(1, A.toUpperCase()), row(2, A), row(3, 'x'), row(4, undefined), row(5, B)]),
    ]).toEqual([A, B]);
  });
});

describe('ImportBatchPreparer', () => {
  function preparerReading() {
    const reads: unknown[] = [];
    const reader = {
      load: (ids: string[], options: unknown) => {
        reads.push(['load', ids, options]);
        return Promise.resolve(new Map([[A, storedLocation(A, 1)]]));
      },
      existingGroups: (ids: unknown, options: unknown) => {
        reads.push(['groups', ids, options]);
        return Promise.resolve(groups(GROUP));
      },
    };
    const store = { reader: () => reader } as unknown as EventStore;
    const prepared: unknown[] = [];
    const bulkAppender = {
      prepare: (appends: StreamAppend[], context: unknown) => {
        prepared.push([appends.map((append) => append.streamId), context]);
        return { eventIds: ['e'] } as unknown as BulkAppend;
      },
    } as unknown as BulkEventAppender;
    const clock: Clock = { now: () => new Date(NOW) };
    const preparer = new ImportBatchPreparer(store, bulkAppender, clock);
    return { preparer, reader: reader as unknown as EventStoreTransaction, reads, prepared };
  }
  const rows = [row(2, A, aLocationInput({ notes: 'changed' })), row(3, B, aLocationInput({ locationGroupId: GROUP }))];

  it('given rows, when prepared, then it reads unlocked, decides at the clock time and serializes for COPY', async () => {
    const { preparer, reads, prepared } = preparerReading();

    const batch = await preparer.prepare(rows, importRowIdsOf(rows), 'request-1');

    expect(reads).toEqual([
      ['load', [A, B], { lock: false }],
      ['groups', { locationGroupIds: [GROUP], addressGroupIds: [] }, { lock: false }],
    ]);
    expect(prepared).toEqual([[[A, B], { timestamp: NOW, correlationId: 'request-1' }]]);
    expect(batch).toMatchObject({
      rows,
      ids: new Set([A, B]),
      bulk: { eventIds: ['e'] },
      outcome: { created: 1, updated: 1, unchanged: 0, rejections: [] },
      usedGroups: new Set([GROUP]),
      correlationId: 'request-1',
    });
  });

  it('given rows and a transaction, when prepared under locks, then it reads in that transaction with locks', async () => {
    const { preparer, reader, reads } = preparerReading();

    const batch = await preparer.prepareLocked(reader, rows, importRowIdsOf(rows), 'request-1');

    expect(reads).toEqual([
      ['load', [A, B], { lock: true }],
      ['groups', { locationGroupIds: [GROUP], addressGroupIds: [] }, { lock: true }],
    ]);
    expect(batch.outcome).toEqual({ created: 1, updated: 1, unchanged: 0, rejections: [] });
  });
});
