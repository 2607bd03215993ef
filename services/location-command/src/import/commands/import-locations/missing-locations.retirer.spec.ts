import type { EntityManager, QueryRunner } from 'typeorm';
import type { Location } from '@lx/contracts';
import { aLocation } from '@lx/domain/testing';
import type { Clock } from '@lx/platform';
import type { BulkAppend, BulkEventAppender } from '../../../event-store/bulk-event.appender';
import type { EventStore } from '../../../event-store/event-store';
import type { EventStoreTransaction } from '../../../event-store/event-store.transaction';
import type { StoredStream, StreamAppend } from '../../../event-store/event-store.types';
import type { ImportOptions } from '../../import-options';
import type { ImportRowsMetrics } from './import-rows.metrics';
import { MissingLocationsRetirer, retirementsOf } from './missing-locations.retirer';

const NOW = '2024-06-01T12:00:00.000Z';

function stored(id: string, location: Location, version = 2): StoredStream {
  return { streamId: id, streamType: 'location', version, deleted: false, data: location };
}

describe('retirementsOf', () => {
  it('given locations in service, when decided, then each gets one LOCATION_UPDATED to RETIRED from its version', () => {
    const appends = retirementsOf(
      new Map([
        ['a', stored('a', aLocation({ id: 'a', status: 'ACTIVE' }), 4)],
        ['b', stored('b', aLocation({ id: 'b' }))],
      ]),
      NOW,
    );

    expect(
      appends.map(({ streamId, fromVersion, index }) => [streamId, fromVersion, index.serviceabilityStatus]),
    ).toEqual([
      ['a', 4, 'RETIRED'],
      ['b', 2, 'RETIRED'],
    ]);
    expect(appends[0]!.events).toEqual([
      expect.objectContaining({
        type: 'LOCATION_UPDATED',
        data: expect.objectContaining({
          updatedAt: NOW,
          fiberAccessDetails: { serviceability: { status: 'RETIRED' } },
        }),
      }),
    ]);
  });

  it('given locations that left service meanwhile, when decided, then they get nothing', () => {
    const appends = retirementsOf(
      new Map([
        ['a', stored('a', aLocation({ id: 'a', status: 'RETIRED' }))],
        ['b', stored('b', aLocation({ id: 'b', status: 'CANCELLED' }))],
      ]),
      NOW,
    );

    expect(appends).toEqual([]);
  });
});

describe('MissingLocationsRetirer', () => {
  const options: ImportOptions = { batchSize: 2, maxRowBytes: 1_000, maxReportedRejections: 10, maxRetireShare: 0.1 };

  /** Unnamed locations in service, handed out by the paged query as the database would. */
  function retirerOver(unnamed: string[]) {
    const statements: { sql: string; parameters: unknown[] | undefined }[] = [];
    const runner = {
      query: (sql: string, parameters?: unknown[]) => {
        statements.push({ sql: sql.trim(), parameters });
        if (!sql.includes('FROM pg_temp.import_retire WHERE')) return Promise.resolve([]);
        const [after, limit] = parameters as [string, number];
        return Promise.resolve(
          unnamed
            .filter((id) => id > after)
            .slice(0, limit)
            .map((id) => ({ stream_id: id })),
        );
      },
    } as unknown as QueryRunner;
    const transactions: { runner: QueryRunner | undefined; loaded: readonly string[]; appended: string[] }[] = [];
    const store = {
      async transaction<T>(work: (transaction: EventStoreTransaction) => Promise<T>, onRunner?: QueryRunner) {
        const record = { runner: onRunner, loaded: [] as readonly string[], appended: [] as string[] };
        transactions.push(record);
        return work({
          load: (ids: readonly string[]) => {
            record.loaded = ids;
            return Promise.resolve(new Map(ids.map((id) => [id, stored(id, aLocation({ id }))])));
          },
          appendBulk: (bulk: BulkAppend) => Promise.resolve(record.appended.push(...bulk.eventIds)),
        } as unknown as EventStoreTransaction);
      },
    } as unknown as EventStore;
    const bulkAppender = {
      prepare: (appends: StreamAppend[], context: { timestamp: string; correlationId?: string }) => {
        expect(context).toEqual({ timestamp: NOW, correlationId: 'request-1' });
        return { eventIds: appends.map((append) => append.streamId) } as unknown as BulkAppend;
      },
    } as unknown as BulkEventAppender;
    const retiredCounts: number[] = [];
    const metrics = { countRetired: (count: number) => retiredCounts.push(count) } as unknown as ImportRowsMetrics;
    const clock: Clock = { now: () => new Date(NOW) };
    const retirer = new MissingLocationsRetirer(store, bulkAppender, clock, options, metrics);
    return { retirer, runner, statements, transactions, retiredCounts };
  }

  it('given unnamed locations, when retired, then pages of batchSize in id order each go in one transaction on the runner', async () => {
    const { retirer, runner, statements, transactions, retiredCounts } = retirerOver(['a1', 'b2', 'c3']);

    expect(await retirer.retireMissing(runner, 'request-1')).toBe(3);

    expect(statements.map((statement) => statement.parameters)).toEqual([
      ['00000000-0000-0000-0000-000000000000', 2],
      ['b2', 2],
      ['c3', 2],
    ]);
    expect(statements[0]!.sql).toMatch(/FROM pg_temp.import_retire WHERE stream_id > \$1 ORDER BY stream_id/);
    expect(transactions).toEqual([
      { runner, loaded: ['a1', 'b2'], appended: ['a1', 'b2'] },
      { runner, loaded: ['c3'], appended: ['c3'] },
    ]);
    expect(retiredCounts).toEqual([2, 1]);
  });

  it('given every location named, when retired, then nothing is written', async () => {
    const { retirer, runner, transactions } = retirerOver([]);

    expect(await retirer.retireMissing(runner, 'request-1')).toBe(0);
    expect(transactions).toEqual([]);
  });

  it('records the named ids in a temporary table of the connection, from begin to end', async () => {
    const { retirer, runner, statements } = retirerOver([]);
    const inserts: unknown[][] = [];
    const manager = {
      query: (sql: string, parameters: unknown[]) => Promise.resolve(inserts.push([sql, parameters])),
    } as unknown as EntityManager;

    await retirer.begin(runner);
    await retirer.recordNamed(manager, new Set(['a', 'b']));
    await retirer.recordNamed(manager, new Set());
    await retirer.end(runner);

    expect(statements.map((statement) => statement.sql)).toEqual([
      'CREATE TEMP TABLE IF NOT EXISTS import_seen (stream_id uuid PRIMARY KEY)',
      'CREATE TEMP TABLE IF NOT EXISTS import_retire (stream_id uuid PRIMARY KEY)',
      'TRUNCATE pg_temp.import_seen, pg_temp.import_retire',
      expect.stringMatching(/^SELECT count\(\*\)::int AS n FROM aggregate_state WHERE stream_type = 'location'/),
      'DROP TABLE IF EXISTS pg_temp.import_seen, pg_temp.import_retire',
    ]);
    expect(inserts).toEqual([
      ['INSERT INTO pg_temp.import_seen SELECT unnest($1::uuid[]) ON CONFLICT DO NOTHING', [['a', 'b']]],
    ]);
  });

  it('ends without an error on a broken connection', async () => {
    const runner = { query: () => Promise.reject(new Error('connection lost')) } as unknown as QueryRunner;
    const { retirer } = retirerOver([]);

    await expect(retirer.end(runner)).resolves.toBeUndefined();
  });
});
