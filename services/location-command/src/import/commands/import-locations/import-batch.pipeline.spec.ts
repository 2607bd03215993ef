import { ImportFileError, type ImportRow } from '../../infrastructure/import-row';
import { batchesOf, ImportBatchPipeline } from './import-batch.pipeline';

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function rowsOf(...ids: number[]): ImportRow[] {
  return ids.map((n) => ({ line: n, id: ID(n), body: {}, issues: [] }));
}

async function* chunks(...parts: (ImportRow[] | Error)[]): AsyncGenerator<ImportRow[]> {
  for (const part of parts) {
    if (part instanceof Error) throw part;
    yield part;
  }
}

async function collect(batches: AsyncIterable<ImportRow[]>): Promise<{ lines: number[][]; error?: unknown }> {
  const lines: number[][] = [];
  try {
    for await (const batch of batches) lines.push(batch.map((row) => row.line));
  } catch (error) {
    return { lines, error };
  }
  return { lines };
}

describe('batchesOf', () => {
  it('given small arrays of rows, when batched, then a batch ends with the array that fills it and the rest comes last', async () => {
    const result = await collect(batchesOf(chunks(rowsOf(1, 2), rowsOf(3, 4, 5), rowsOf(6), rowsOf(7)), 3));

    expect(result).toEqual({
      lines: [
        [1, 2, 3, 4, 5],
        [6, 7],
      ],
    });
  });

  it('given a file that cannot be read on, when batched, then the rows before it come as a last batch, then the error', async () => {
    const broken = new ImportFileError('quote never closes', 9);

    const result = await collect(batchesOf(chunks(rowsOf(1, 2, 3), rowsOf(4), broken), 3));

    expect(result).toEqual({ lines: [[1, 2, 3], [4]], error: broken });
  });

  it('given another error, when batched, then the rows read so far are not yielded', async () => {
    const failure = new Error('socket hang up');

    const result = await collect(batchesOf(chunks(rowsOf(1), failure), 3));

    expect(result).toEqual({ lines: [], error: failure });
  });
});

/** A promise with its resolve and reject, to let a test decide when a step finishes. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Steps that log what happens; each commit waits until the test finishes it. */
function recordingSteps() {
  const log: string[] = [];
  const commits: ReturnType<typeof deferred>[] = [];
  const pipeline = new ImportBatchPipeline<string>({
    prepare: (rows) => {
      const name = rows.map((row) => row.line).join('+');
      log.push(`prepare ${name}`);
      return Promise.resolve(name);
    },
    commit: (name) => {
      log.push(`commit ${name}`);
      const commit = deferred();
      commits.push(commit);
      return commit.promise.then(() => void log.push(`committed ${name}`));
    },
  });
  return { pipeline, log, commits };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ImportBatchPipeline', () => {
  it('given batches of different locations, when submitted, then the next is prepared while the previous commits', async () => {
    const { pipeline, log, commits } = recordingSteps();

    await pipeline.submit(rowsOf(1, 2));
    const second = pipeline.submit(rowsOf(3, 4));
    await settle();

    expect(log).toEqual(['prepare 1+2', 'commit 1+2', 'prepare 3+4']);
    commits[0]!.resolve();
    await second;
    commits[1]!.resolve();
    await pipeline.drain();
    expect(log).toEqual(['prepare 1+2', 'commit 1+2', 'prepare 3+4', 'committed 1+2', 'commit 3+4', 'committed 3+4']);
  });

  it('given a batch naming a location of the batch committing, when submitted, then it is prepared after that commit', async () => {
    const { pipeline, log, commits } = recordingSteps();

    await pipeline.submit(rowsOf(1, 2));
    const second = pipeline.submit(rowsOf(2, 3));
    await settle();

    expect(log).toEqual(['prepare 1+2', 'commit 1+2']);
    commits[0]!.resolve();
    await second;
    expect(log).toEqual(['prepare 1+2', 'commit 1+2', 'committed 1+2', 'prepare 2+3', 'commit 2+3']);
  });

  it('given a commit that fails, when the next batch is submitted, then the failure surfaces there', async () => {
    const { pipeline, commits } = recordingSteps();

    await pipeline.submit(rowsOf(1));
    commits[0]!.reject(new Error('database away'));

    await expect(pipeline.submit(rowsOf(2))).rejects.toThrow('database away');
  });

  it('given the last commit fails, when drained, then drain rejects with its error', async () => {
    const { pipeline, commits } = recordingSteps();

    await pipeline.submit(rowsOf(1));
    commits[0]!.reject(new Error('disk full'));

    await expect(pipeline.drain()).rejects.toThrow('disk full');
  });
});
