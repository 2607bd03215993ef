import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { BulkEventAppender } from './bulk-event.appender';
import type { EventAppender } from './event.appender';
import { EventStore } from './event-store';
import { ConcurrentWriteError, FencedWriteError } from './event-store.errors';
import { EventStoreTransaction } from './event-store.transaction';

const versionConflict = Object.assign(new Error('duplicate key'), {
  code: '23505',
  constraint: 'events_stream_id_stream_version_key',
});

/**
 * A data source (on schema `lc`) whose transactions run `work` on a fake manager; `failures` are thrown by the first
 * attempts. Statements of the transactions are recorded in `transactionQueries`.
 */
function fakeDataSource(failures: Error[] = [], rows: unknown[] = []) {
  const calls = {
    transactions: 0,
    queries: [] as { sql: string; parameters: unknown[] }[],
    transactionQueries: [] as { sql: string; parameters: unknown[] }[],
  };
  const manager = {
    name: 'transaction manager',
    query: (sql: string, parameters: unknown[]) => {
      calls.transactionQueries.push({ sql, parameters });
      return Promise.resolve([]);
    },
  } as unknown as EntityManager;
  const dataSource = {
    options: { schema: 'lc' },
    manager: { name: 'data source manager' },
    async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
      calls.transactions += 1;
      const failure = failures.shift();
      const result = await work(manager);
      if (failure !== undefined) throw failure;
      return result;
    },
    query: (sql: string, parameters: unknown[]) => {
      calls.queries.push({ sql, parameters });
      return Promise.resolve(rows);
    },
  } as unknown as DataSource;
  return { dataSource, manager, calls };
}

function storeOn(dataSource: DataSource): EventStore {
  return new EventStore(dataSource, {} as EventAppender, {} as BulkEventAppender);
}

describe('EventStore.transaction', () => {
  it('given work, when run, then it gets a transaction on the transaction manager and its result is returned', async () => {
    const { dataSource, manager } = fakeDataSource();

    const result = await storeOn(dataSource).transaction((transaction) => {
      expect(transaction).toBeInstanceOf(EventStoreTransaction);
      expect(transaction.manager).toBe(manager);
      return Promise.resolve('done');
    });

    expect(result).toBe('done');
  });

  it('given a lost stream version race, when run, then the work runs again', async () => {
    const { dataSource, calls } = fakeDataSource([versionConflict]);

    await expect(storeOn(dataSource).transaction(() => Promise.resolve('second'))).resolves.toBe('second');
    expect(calls.transactions).toBe(2);
  });

  it('given a race lost on every attempt, when run, then it gives up with ConcurrentWriteError', async () => {
    const { dataSource, calls } = fakeDataSource([versionConflict, versionConflict, versionConflict]);

    await expect(storeOn(dataSource).transaction(() => Promise.resolve())).rejects.toBeInstanceOf(ConcurrentWriteError);
    expect(calls.transactions).toBe(3);
  });

  it('given a limit of one attempt, when the race is lost, then it gives up at once', async () => {
    const { dataSource, calls } = fakeDataSource([versionConflict]);
    const runner = {
      manager: { query: () => Promise.resolve([]) },
      startTransaction: () => Promise.resolve(),
      commitTransaction: () => Promise.reject(versionConflict),
      rollbackTransaction: () => Promise.resolve(),
    } as unknown as QueryRunner;

    await expect(storeOn(dataSource).transaction(() => Promise.resolve(), runner, 1)).rejects.toBeInstanceOf(
      ConcurrentWriteError,
    );
    expect(calls.transactions).toBe(0);
  });

  it('given another error, when run, then it is thrown without a retry', async () => {
    const { dataSource, calls } = fakeDataSource([new Error('connection lost')]);

    await expect(storeOn(dataSource).transaction(() => Promise.resolve())).rejects.toThrow('connection lost');
    expect(calls.transactions).toBe(1);
  });

  it('given a query runner, when the work succeeds or fails, then the transaction is committed or rolled back on it', async () => {
    const { dataSource } = fakeDataSource();
    const steps: string[] = [];
    const runnerManager = {
      query: (sql: string) => Promise.resolve(steps.push(sql.startsWith('SELECT pg_advisory') ? 'lock' : sql)),
    } as unknown as EntityManager;
    const runner = {
      manager: runnerManager,
      startTransaction: () => Promise.resolve(steps.push('start')),
      commitTransaction: () => Promise.resolve(steps.push('commit')),
      rollbackTransaction: () => Promise.resolve(steps.push('rollback')),
    } as unknown as QueryRunner;
    const store = storeOn(dataSource);

    await store.transaction(
      (transaction) => Promise.resolve(steps.push(transaction.manager === runnerManager ? 'work on runner' : 'work')),
      runner,
    );
    await expect(store.transaction(() => Promise.reject(new Error('refused')), runner)).rejects.toThrow('refused');

    expect(steps).toEqual(['start', 'lock', 'work on runner', 'commit', 'start', 'lock', 'rollback']);
  });

  it('given work, when run, then the first statement of its transaction takes the fence lock of the schema shared', async () => {
    const { dataSource, calls } = fakeDataSource();

    await storeOn(dataSource).transaction(() => Promise.resolve());

    expect(calls.transactionQueries).toEqual([
      {
        sql: expect.stringMatching(/^SELECT pg_advisory_xact_lock_shared\(\d+, hashtext\(\$1\)\)$/),
        parameters: ['watermark-fence:lc'],
      },
    ]);
  });

  it('given work that appends, when run, then the append checks its time against the fence under the lock', async () => {
    const { dataSource, calls } = fakeDataSource();
    const appender = { append: () => Promise.resolve() } as unknown as EventAppender;
    const store = new EventStore(dataSource, appender, {} as BulkEventAppender);
    const append = { streamId: 'a', streamType: 'location', fromVersion: 0, events: [{}], index: {} } as never;

    // The fake manager answers no row: a fence table without its row is an error, never an open fence.
    await expect(
      store.transaction((transaction) => transaction.append([append], { timestamp: '2024-01-15T10:00:00.000Z' })),
    ).rejects.toThrow(/watermark_fence has no row/);

    expect(calls.transactionQueries.map((query) => query.parameters)).toEqual([
      ['watermark-fence:lc'],
      ['2024-01-15T10:00:00.000Z'],
    ]);
    expect(calls.transactionQueries[1]!.sql).toMatch(/^SELECT \$1::timestamptz > fenced_at/);
  });

  it('given a write fenced out, when run, then it runs again after the clock passed the fence', async () => {
    const fenced = new FencedWriteError('2024-01-15T10:00:00.000Z', new Date('2024-01-15T10:00:00.020Z'));
    const { dataSource, calls } = fakeDataSource([fenced]);
    const started = Date.now();

    await expect(storeOn(dataSource).transaction(() => Promise.resolve('later'))).resolves.toBe('later');

    expect(calls.transactions).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(20);
  });

  it('given a write fenced out on its last attempt, when run, then ConcurrentWriteError once the fence is passed', async () => {
    const fenced = new FencedWriteError('2024-01-15T10:00:00.000Z', new Date('2024-01-15T10:00:00.020Z'));
    const { dataSource, calls } = fakeDataSource([fenced]);
    const started = Date.now();

    await expect(storeOn(dataSource).transaction(() => Promise.resolve(), undefined, 1)).rejects.toBeInstanceOf(
      ConcurrentWriteError,
    );

    expect(calls.transactions).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(20);
  });
});

describe('EventStore.find and reader', () => {
  it('given a stored stream, when found, then it is the state row with the data of its last event', async () => {
    const row = {
      stream_id: 'a',
      stream_type: 'location',
      version: 3,
      deleted: false,
      payload: JSON.stringify({ id: 'e', data: { id: 'a', notes: 'x' } }),
    };
    const { dataSource, calls } = fakeDataSource([], [row]);

    expect(await storeOn(dataSource).find('a')).toEqual({
      streamId: 'a',
      streamType: 'location',
      version: 3,
      deleted: false,
      data: { id: 'a', notes: 'x' },
    });
    expect(calls.queries[0]!.sql).toMatch(/FROM aggregate_state s JOIN events e[\s\S]*WHERE s.stream_id = \$1$/);
  });

  it('given no stream, when found, then it is undefined', async () => {
    const { dataSource } = fakeDataSource([], []);

    expect(await storeOn(dataSource).find('a')).toBeUndefined();
  });

  it('reads outside any transaction on the data source manager', () => {
    const { dataSource } = fakeDataSource();

    expect(storeOn(dataSource).reader().manager).toBe(dataSource.manager);
  });
});
