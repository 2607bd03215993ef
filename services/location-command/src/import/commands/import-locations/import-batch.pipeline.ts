import type { ImportRow } from '../../infrastructure/import-row';
import { ImportFileError } from '../../infrastructure/import-row';
import { importRowIdsOf } from './import-batch.preparer';

/** The two steps of a batch: decide it (no transaction), then write it. */
export interface ImportBatchSteps<P> {
  prepare(rows: readonly ImportRow[], ids: ReadonlySet<string>): Promise<P>;
  commit(prepared: P): Promise<void>;
}

/**
 * The rows of a file in batches of at least `size` rows (the readers yield small arrays; a batch ends with the array
 * that fills it). When the file cannot be read on (`ImportFileError`), the rows read before the error are yielded as
 * a last batch and the error is thrown after it, so everything before the broken point is applied.
 */
export async function* batchesOf(rows: AsyncIterable<readonly ImportRow[]>, size: number): AsyncGenerator<ImportRow[]> {
  let batch: ImportRow[] = [];
  try {
    for await (const chunk of rows) {
      for (const row of chunk) batch.push(row);
      if (batch.length < size) continue;
      const full = batch;
      batch = [];
      yield full;
    }
  } catch (error) {
    if (error instanceof ImportFileError && batch.length > 0) yield batch;
    throw error;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Runs batches through prepare and commit in file order, preparing the next batch while the previous one commits.
 * Commits never overlap. A batch that names a location of the batch being committed is prepared only after that
 * commit, so it is decided on the state the commit leaves. Memory holds at most two batches.
 */
export class ImportBatchPipeline<P> {
  private committing: Promise<void> = Promise.resolve();
  private committingIds: ReadonlySet<string> = new Set();

  constructor(private readonly steps: ImportBatchSteps<P>) {}

  /** Resolves once the batch is prepared and its commit has started; a failed earlier commit rejects here. */
  async submit(rows: readonly ImportRow[]): Promise<void> {
    const ids = importRowIdsOf(rows);
    if ([...ids].some((id) => this.committingIds.has(id))) await this.committing;
    const prepared = await this.steps.prepare(rows, ids);
    await this.committing;
    this.committingIds = ids;
    this.committing = this.steps.commit(prepared);
    // Awaited by the next submit or drain; marked handled so a failure does not count as unhandled meanwhile.
    this.committing.catch(() => undefined);
  }

  /** Waits for the last commit; rejects with its error. */
  drain(): Promise<void> {
    return this.committing;
  }
}
