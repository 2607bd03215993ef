import type { QueryRunner } from 'typeorm';
import type { ExistingGroups } from '@lx/domain';
import type { BulkAppend } from '../../../event-store/bulk-event.appender';
import type { EventStore } from '../../../event-store/event-store';
import { ConcurrentWriteError } from '../../../event-store/event-store.errors';
import type { EventStoreTransaction } from '../../../event-store/event-store.transaction';
import type { StreamAppend } from '../../../event-store/event-store.types';
import { ImportBatchCommitter } from './import-batch.committer';
import type { ImportBatchPreparer, PreparedBatch } from './import-batch.preparer';
import type { BatchOutcome } from './import-report';
import type { ImportRowsMetrics } from './import-rows.metrics';

const runner = { name: 'import connection' } as unknown as QueryRunner;

function batch(name: string, appends: Partial<StreamAppend>[], usedGroups: string[] = []): PreparedBatch {
  const outcome: BatchOutcome = { created: 0, updated: appends.length, unchanged: 0, rejections: [] };
  return {
    rows: [],
    ids: new Set(appends.map((append) => append.streamId!)),
    bulk: { appends, eventIds: [name] } as unknown as BulkAppend,
    outcome,
    usedGroups: new Set(usedGroups),
    correlationId: 'request-1',
  };
}

/**
 * An event store whose transactions see `versions` and `groups` as the database holds them, and record the batches
 * appended; `failures` are thrown by the next transactions instead of running them.
 */
function fakeStore(state: { versions: Map<string, number>; groups: Set<string>; failures?: Error[] }) {
  const written: string[] = [];
  const attempts: { runner: QueryRunner | undefined; attempts: number | undefined }[] = [];
  const store = {
    async transaction<T>(
      work: (transaction: EventStoreTransaction) => Promise<T>,
      onRunner?: QueryRunner,
      maxAttempts?: number,
    ): Promise<T> {
      attempts.push({ runner: onRunner, attempts: maxAttempts });
      const failure = state.failures?.shift();
      if (failure !== undefined) throw failure;
      const transaction = {
        manager: { name: 'manager' },
        lockVersions: (ids: string[]) =>
          Promise.resolve(
            new Map(ids.flatMap((id) => (state.versions.has(id) ? [[id, state.versions.get(id)!]] : []))),
          ),
        existingGroups: (ids: { locationGroupIds: string[] }): Promise<ExistingGroups> => {
          const existing = new Set(ids.locationGroupIds.filter((id) => state.groups.has(id)));
          return Promise.resolve({ locationGroups: existing, addressGroups: new Set() });
        },
        appendBulk: (bulk: BulkAppend) => Promise.resolve(written.push(bulk.eventIds[0]!)),
      } as unknown as EventStoreTransaction;
      return work(transaction);
    },
  } as unknown as EventStore;
  return { store, written, attempts };
}

/** `fresh`: the batches decided again on unlocked reads; `locked`: the one decided in the transaction under locks. */
function committerWith(store: EventStore, fresh: PreparedBatch[] = [], locked?: PreparedBatch) {
  const prepared: unknown[] = [];
  const preparedLocked: unknown[] = [];
  const preparer = {
    prepare: (rows: unknown, ids: unknown, correlationId: unknown) => {
      prepared.push([rows, ids, correlationId]);
      return Promise.resolve(fresh.shift());
    },
    prepareLocked: (transaction: EventStoreTransaction, rows: unknown, ids: unknown, correlationId: unknown) => {
      preparedLocked.push([(transaction.manager as unknown as { name: string }).name, rows, ids, correlationId]);
      return Promise.resolve(locked);
    },
  } as unknown as ImportBatchPreparer;
  const counted: BatchOutcome[] = [];
  const metrics = { countBatch: (outcome: BatchOutcome) => counted.push(outcome) } as unknown as ImportRowsMetrics;
  return { committer: new ImportBatchCommitter(store, preparer, metrics), prepared, preparedLocked, counted };
}

describe('ImportBatchCommitter', () => {
  it('given what the batch was decided on still holds, when committed, then it is written once on the import connection', async () => {
    const { store, written, attempts } = fakeStore({ versions: new Map([['a', 2]]), groups: new Set(['g']) });
    const { committer, prepared, counted } = committerWith(store);
    const first = batch(
      'first',
      [
        { streamId: 'a', fromVersion: 2 },
        { streamId: 'new', fromVersion: 0 },
      ],
      ['g'],
    );

    const outcome = await committer.commit(first, runner);

    expect(outcome).toBe(first.outcome);
    expect(written).toEqual(['first']);
    expect(attempts).toEqual([{ runner, attempts: 1 }]);
    expect(prepared).toEqual([]);
    expect(counted).toEqual([first.outcome]);
  });

  it('given a location written meanwhile, when committed, then the batch is decided again and the fresh one written', async () => {
    const { store, written } = fakeStore({ versions: new Map([['a', 3]]), groups: new Set() });
    const fresh = batch('fresh', [{ streamId: 'a', fromVersion: 3 }]);
    const { committer, prepared, counted } = committerWith(store, [fresh]);
    const stale = batch('stale', [{ streamId: 'a', fromVersion: 2 }]);

    expect(await committer.commit(stale, runner)).toBe(fresh.outcome);
    expect(written).toEqual(['fresh']);
    expect(prepared).toEqual([[stale.rows, stale.ids, 'request-1']]);
    expect(counted).toEqual([fresh.outcome]);
  });

  it('given a referenced group deleted meanwhile, when committed, then the batch is decided again', async () => {
    const { store, written } = fakeStore({ versions: new Map(), groups: new Set() });
    const fresh = batch('fresh', [{ streamId: 'a', fromVersion: 0 }]);
    const { committer } = committerWith(store, [fresh]);

    await committer.commit(batch('stale', [{ streamId: 'a', fromVersion: 0 }], ['gone']), runner);

    expect(written).toEqual(['fresh']);
  });

  it('given a lost stream version race, when committed, then the batch is decided again', async () => {
    const { store, written } = fakeStore({
      versions: new Map(),
      groups: new Set(),
      failures: [new ConcurrentWriteError()],
    });
    const { committer } = committerWith(store, [batch('fresh', [{ streamId: 'a', fromVersion: 0 }])]);

    await committer.commit(batch('stale', [{ streamId: 'a', fromVersion: 0 }]), runner);

    expect(written).toEqual(['fresh']);
  });

  it('given the state moves on both unlocked attempts, when committed, then the batch is decided under locks inside its transaction and written', async () => {
    const { store, written, attempts } = fakeStore({ versions: new Map([['a', 9]]), groups: new Set() });
    const again = () => batch('again', [{ streamId: 'a', fromVersion: 1 }]);
    const underLocks = batch('under locks', [{ streamId: 'a', fromVersion: 9 }]);
    const { committer, prepared, preparedLocked, counted } = committerWith(store, [again()], underLocks);
    const seen: string[] = [];
    const also = (_transaction: EventStoreTransaction, committed: PreparedBatch) => {
      seen.push(`${written.join()} for ${committed.bulk.eventIds.join()}`);
      return Promise.resolve();
    };

    const stale = again();
    expect(await committer.commit(stale, runner, also)).toBe(underLocks.outcome);
    expect(attempts).toEqual([
      { runner, attempts: 1 },
      { runner, attempts: 1 },
      { runner, attempts: 3 },
    ]);
    expect(prepared).toEqual([[stale.rows, stale.ids, 'request-1']]);
    expect(preparedLocked).toEqual([['manager', stale.rows, stale.ids, 'request-1']]);
    expect(written).toEqual(['under locks']);
    expect(seen).toEqual(['under locks for under locks']);
    expect(counted).toEqual([underLocks.outcome]);
  });

  it('given the locked attempt fails too, when committed, then its error is thrown and nothing is counted', async () => {
    const { store, written } = fakeStore({
      versions: new Map([['a', 9]]),
      groups: new Set(),
      failures: [new ConcurrentWriteError(), new ConcurrentWriteError(), new ConcurrentWriteError()],
    });
    const again = () => batch('again', [{ streamId: 'a', fromVersion: 1 }]);
    const { committer, counted } = committerWith(store, [again()], again());

    await expect(committer.commit(again(), runner)).rejects.toBeInstanceOf(ConcurrentWriteError);
    expect(written).toEqual([]);
    expect(counted).toEqual([]);
  });

  it('given another error, when committed, then it is thrown at once', async () => {
    const { store } = fakeStore({ versions: new Map(), groups: new Set(), failures: [new Error('disk full')] });
    const { committer, prepared } = committerWith(store);

    await expect(committer.commit(batch('b', [{ streamId: 'a', fromVersion: 0 }]), runner)).rejects.toThrow(
      'disk full',
    );
    expect(prepared).toEqual([]);
  });

  it('given more work for the transaction, when committed, then it runs after the append with the batch written', async () => {
    const { store, written } = fakeStore({ versions: new Map(), groups: new Set() });
    const { committer } = committerWith(store);
    const seen: string[] = [];
    const also = (transaction: EventStoreTransaction, committed: PreparedBatch) => {
      seen.push(
        `${written.join()} then ${[...committed.ids].join()} on ${(transaction.manager as unknown as { name: string }).name}`,
      );
      return Promise.resolve();
    };

    await committer.commit(batch('b', [{ streamId: 'a', fromVersion: 0 }]), runner, also);

    expect(seen).toEqual(['b then a on manager']);
  });
});
