import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { EventStoreTransaction } from '../../../event-store/event-store.transaction';
import { ImportFileRejectedError, RetirementsNotConfirmedError } from '../../import.errors';
import type { ImportOptions } from '../../import-options';
import { ImportFileError, type ImportRow } from '../../infrastructure/import-row';
import type { ImportBatchCommitter, InBatchTransaction } from './import-batch.committer';
import type { ImportBatchPreparer, PreparedBatch } from './import-batch.preparer';
import { ImportLocationsHandler } from './import-locations.handler';
import type { MissingLocationsRetirer } from './missing-locations.retirer';

const options: ImportOptions = { batchSize: 2, maxRowBytes: 1_000, maxReportedRejections: 10, maxRetireShare: 0.1 };
const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function* file(...parts: (number[] | Error)[]): AsyncGenerator<ImportRow[]> {
  for (const part of parts) {
    if (part instanceof Error) throw part;
    yield part.map((n) => ({ line: n, id: ID(n), body: {}, issues: [] }));
  }
}

/** The handler with fakes that log each step; every row is created unless `failCommit` says otherwise. */
function handlerWithFakes(failCommit?: Error, counted = { inService: 70, wouldRetire: 7 }) {
  const log: string[] = [];
  const runner = {
    connect: () => Promise.resolve(log.push('connect')),
    release: () => Promise.resolve(log.push('release')),
  } as unknown as QueryRunner;
  const dataSource = { createQueryRunner: () => runner } as unknown as DataSource;
  const preparer = {
    prepare: (rows: readonly ImportRow[], ids: ReadonlySet<string>, correlationId: string | undefined) =>
      Promise.resolve({
        rows,
        ids,
        correlationId,
        outcome: { created: rows.length, updated: 0, unchanged: 0, rejections: [] },
      } as unknown as PreparedBatch),
  } as unknown as ImportBatchPreparer;
  const committer = {
    async commit(prepared: PreparedBatch, on: QueryRunner, also?: InBatchTransaction) {
      expect(on).toBe(runner);
      log.push(`commit ${prepared.rows.map((row) => row.line).join('+')}`);
      if (failCommit !== undefined) throw failCommit;
      await also?.({ manager: {} as EntityManager } as EventStoreTransaction, prepared);
      return prepared.outcome;
    },
  } as unknown as ImportBatchCommitter;
  const retirer = {
    begin: () => {
      log.push('begin');
      return Promise.resolve(counted.inService);
    },
    recordNamed: (_manager: EntityManager, ids: ReadonlySet<string>) => Promise.resolve(log.push(`named ${ids.size}`)),
    planRetirements: () => {
      log.push('plan retirements');
      return Promise.resolve(counted.wouldRetire);
    },
    retireMissing: (_runner: QueryRunner, correlationId: string | undefined) => {
      log.push(`retire missing for ${correlationId}`);
      return Promise.resolve(7);
    },
    end: () => Promise.resolve(log.push('end')),
  } as unknown as MissingLocationsRetirer;
  const handler = new ImportLocationsHandler(dataSource, preparer, committer, retirer, options);
  return { handler, log };
}

describe('ImportLocationsHandler', () => {
  // The handler logs each finished import; the log is not under test.
  beforeAll(() => Logger.overrideLogger(false));

  it('given a merge import, when executed, then batches are committed on one connection and reported', async () => {
    const { handler, log } = handlerWithFakes();

    const report = await handler.execute({ rows: file([1], [2, 3], [4]), mode: 'merge', correlationId: 'r' });

    expect(report).toMatchObject({ mode: 'merge', rowsRead: 4, created: 4, retired: 0 });
    expect(log).toEqual(['connect', 'commit 1+2+3', 'commit 4', 'release']);
  });

  it('given a full-replace import, when executed, then named ids are recorded per batch and the missing retired at the end', async () => {
    const { handler, log } = handlerWithFakes();

    const report = await handler.execute({ rows: file([1, 2], [3]), mode: 'full-replace', correlationId: 'r' });

    expect(report).toMatchObject({ mode: 'full-replace', rowsRead: 3, created: 3, retired: 7 });
    expect(log).toEqual([
      'connect',
      'begin',
      'commit 1+2',
      'named 2',
      'commit 3',
      'named 1',
      'plan retirements',
      'retire missing for r',
      'end',
      'release',
    ]);
  });

  it('given a full replace that would retire more than the share, when executed, then it is refused with the number to confirm and retires nothing', async () => {
    const { handler, log } = handlerWithFakes(undefined, { inService: 70, wouldRetire: 8 });

    const error = await handler
      .execute({ rows: file([1, 2]), mode: 'full-replace', correlationId: 'r' })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(RetirementsNotConfirmedError);
    expect(error).toMatchObject({
      code: 'CONFLICT',
      details: { wouldRetire: 8, inService: 70, maxRetireShare: 0.1, report: { rowsRead: 2, retired: 0 } },
    });
    expect(log).toEqual(['connect', 'begin', 'commit 1+2', 'named 2', 'plan retirements', 'end', 'release']);
  });

  it('given a full replace above the share whose number is confirmed, when executed, then it retires them', async () => {
    const { handler, log } = handlerWithFakes(undefined, { inService: 70, wouldRetire: 60 });

    const report = await handler.execute({ rows: file([1]), mode: 'full-replace', confirmRetirements: 60 });

    expect(report).toMatchObject({ rowsRead: 1, retired: 7 });
    expect(log).toContain('retire missing for undefined');
  });

  it('given a confirmation that does not match, when executed, then it is refused even under the share', async () => {
    const { handler } = handlerWithFakes();

    const error = await handler
      .execute({ rows: file([1]), mode: 'full-replace', confirmRetirements: 6 })
      .catch((thrown: unknown) => thrown);

    expect(error).toMatchObject({ code: 'CONFLICT', details: { wouldRetire: 7, confirmRetirements: 6 } });
  });

  it('given a file that breaks off, when executed, then the rows before are applied, nothing retired, and it is refused with the report', async () => {
    const { handler, log } = handlerWithFakes();

    const error = await handler
      .execute({ rows: file([1, 2], [3], new ImportFileError('quote never closes', 4)), mode: 'full-replace' })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(ImportFileRejectedError);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', details: { line: 4, report: { rowsRead: 3, created: 3 } } });
    expect(log).toEqual(['connect', 'begin', 'commit 1+2', 'named 2', 'commit 3', 'named 1', 'end', 'release']);
  });

  it('given a commit that fails, when executed, then the error is thrown and the connection released', async () => {
    const { handler, log } = handlerWithFakes(new Error('database away'));

    await expect(handler.execute({ rows: file([1, 2], [3]), mode: 'merge' })).rejects.toThrow('database away');
    expect(log.at(-1)).toBe('release');
  });
});
