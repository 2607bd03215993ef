import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { BulkEventAppender } from './bulk-event.appender';
import type { EventAppender } from './event.appender';
import { EventStore } from './event-store';
import { ConcurrentWriteError } from './event-store.errors';
import { EventStoreTransaction } from './event-store.transaction';

const versionConflict = Object.assign(new Error('duplicate key'), {
  code: '23505',
  constraint: 'events_stream_id_stream_version_key',
});

/** A data source whose transactions run `work` on a fake manager; `failures` are thrown by the first attempts. */
function fakeDataSource(failures: Error[] = [], rows: unknown[] = []) {
  const manager = { name: 'transaction manager' } as unknown as EntityManager;
  const calls = { transactions: 0, queries: [] as { sql: string; parameters: unknown[] }[] };
  const dataSource = {
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
      manager: {},
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
    const runnerManager = {} as EntityManager;
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

    expect(steps).toEqual(['start', 'work on runner', 'commit', 'start', 'rollback']);
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
