import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { BulkEventAppender } from './bulk-event.appender';
import type { EventAppender } from './event.appender';
import type { EventLog } from './event-log';
import { EventStore } from './event-store';
import { ConcurrentWriteError, FencedWriteError, StreamOrderConflictError } from './event-store.errors';
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
    wakes: 0,
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
  const log = { appended: () => (calls.wakes += 1) } as unknown as EventLog;
  return { dataSource, manager, calls, log };
}

function storeOn(fake: { dataSource: DataSource; log: EventLog }, appender = {} as EventAppender): EventStore {
  return new EventStore(fake.dataSource, appender, {} as BulkEventAppender, fake.log);
}

/** What the events_after_fence trigger raises for a write timed at `timestamp` against the fence `fencedAt`. */
function refusedByFence(timestamp: string, fencedAt: string): Error {
  return Object.assign(new Error('the write is not after the watermark fence'), {
    code: 'LXW01',
    detail: JSON.stringify({ timestamp, fencedAt }),
  });
}

describe('EventStore.transaction', () => {
  it('given work, when run, then it gets a transaction on the transaction manager and its result is returned', async () => {
    const fake = fakeDataSource();
    const { manager } = fake;

    const result = await storeOn(fake).transaction((transaction) => {
      expect(transaction).toBeInstanceOf(EventStoreTransaction);
      expect(transaction.manager).toBe(manager);
      return Promise.resolve('done');
    });

    expect(result).toBe('done');
  });

  it('given a lost stream version race, when run, then the work runs again', async () => {
    const fake = fakeDataSource([versionConflict]);

    await expect(storeOn(fake).transaction(() => Promise.resolve('second'))).resolves.toBe('second');
    expect(fake.calls.transactions).toBe(2);
  });

  it('given a race lost on every attempt, when run, then it gives up with ConcurrentWriteError', async () => {
    const fake = fakeDataSource([versionConflict, versionConflict, versionConflict]);

    await expect(storeOn(fake).transaction(() => Promise.resolve())).rejects.toBeInstanceOf(ConcurrentWriteError);
    expect(fake.calls.transactions).toBe(3);
  });

  it('given a limit of one attempt, when the race is lost, then it gives up at once', async () => {
    const fake = fakeDataSource([versionConflict]);
    const runner = {
      manager: { query: () => Promise.resolve([]) },
      startTransaction: () => Promise.resolve(),
      commitTransaction: () => Promise.reject(versionConflict),
      rollbackTransaction: () => Promise.resolve(),
    } as unknown as QueryRunner;

    await expect(storeOn(fake).transaction(() => Promise.resolve(), runner, 1)).rejects.toBeInstanceOf(
      ConcurrentWriteError,
    );
    expect(fake.calls.transactions).toBe(0);
  });

  it('given another error, when run, then it is thrown without a retry', async () => {
    const fake = fakeDataSource([new Error('connection lost')]);

    await expect(storeOn(fake).transaction(() => Promise.resolve())).rejects.toThrow('connection lost');
    expect(fake.calls.transactions).toBe(1);
  });

  it('given a query runner, when the work succeeds or fails, then the transaction is committed or rolled back on it', async () => {
    const fake = fakeDataSource();
    const steps: string[] = [];
    const runnerManager = {
      query: (sql: string) => Promise.resolve(steps.push(sql)),
    } as unknown as EntityManager;
    const runner = {
      manager: runnerManager,
      startTransaction: () => Promise.resolve(steps.push('start')),
      commitTransaction: () => Promise.resolve(steps.push('commit')),
      rollbackTransaction: () => Promise.resolve(steps.push('rollback')),
    } as unknown as QueryRunner;
    const store = storeOn(fake);

    await store.transaction(
      (transaction) => Promise.resolve(steps.push(transaction.manager === runnerManager ? 'work on runner' : 'work')),
      runner,
    );
    await expect(store.transaction(() => Promise.reject(new Error('refused')), runner)).rejects.toThrow('refused');

    expect(steps).toEqual(['start', 'work on runner', 'commit', 'start', 'rollback']);
  });

  it('given work, when committed, then the relay is woken; when it fails, then not', async () => {
    const fake = fakeDataSource([new Error('connection lost')]);
    const store = storeOn(fake);

    await expect(store.transaction(() => Promise.resolve())).rejects.toThrow('connection lost');
    expect(fake.calls.wakes).toBe(0);
    await store.transaction(() => Promise.resolve());

    expect(fake.calls.wakes).toBe(1);
    expect(fake.calls.transactionQueries).toEqual([]);
  });

  it('given the database refusing the events as fenced, when run, then it runs again after the clock passed the fence', async () => {
    const fake = fakeDataSource([refusedByFence('2024-01-15T10:00:00.000+00:00', '2024-01-15T10:00:00.020+00:00')]);
    const started = Date.now();

    await expect(storeOn(fake).transaction(() => Promise.resolve('later'))).resolves.toBe('later');

    expect(fake.calls.transactions).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(20);
  });

  it('given a stream last written by a later transaction, when run, then the work runs again', async () => {
    const fake = fakeDataSource([new StreamOrderConflictError()]);

    await expect(storeOn(fake).transaction(() => Promise.resolve('again'))).resolves.toBe('again');
    expect(fake.calls.transactions).toBe(2);
  });

  it('given a write fenced out, when run, then it runs again after the clock passed the fence', async () => {
    const fenced = new FencedWriteError('2024-01-15T10:00:00.000Z', new Date('2024-01-15T10:00:00.020Z'));
    const fake = fakeDataSource([fenced]);
    const started = Date.now();

    await expect(storeOn(fake).transaction(() => Promise.resolve('later'))).resolves.toBe('later');

    expect(fake.calls.transactions).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(20);
  });

  it('given a write fenced out on its last attempt, when run, then ConcurrentWriteError once the fence is passed', async () => {
    const fenced = new FencedWriteError('2024-01-15T10:00:00.000Z', new Date('2024-01-15T10:00:00.020Z'));
    const fake = fakeDataSource([fenced]);
    const started = Date.now();

    await expect(storeOn(fake).transaction(() => Promise.resolve(), undefined, 1)).rejects.toBeInstanceOf(
      ConcurrentWriteError,
    );

    expect(fake.calls.transactions).toBe(1);
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
    const fake = fakeDataSource([], [row]);

    expect(await storeOn(fake).find('a')).toEqual({
      streamId: 'a',
      streamType: 'location',
      version: 3,
      deleted: false,
      data: { id: 'a', notes: 'x' },
    });
    expect(fake.calls.queries[0]!.sql).toMatch(/FROM aggregate_state s JOIN events e[\s\S]*WHERE s.stream_id = \$1$/);
  });

  it('given no stream, when found, then it is undefined', async () => {
    const fake = fakeDataSource([], []);

    expect(await storeOn(fake).find('a')).toBeUndefined();
  });

  it('reads outside any transaction on the data source manager', () => {
    const fake = fakeDataSource();

    expect(storeOn(fake).reader().manager).toBe(fake.dataSource.manager);
  });
});
