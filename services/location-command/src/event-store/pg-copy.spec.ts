import type { EntityManager } from 'typeorm';
import { copyField, copyFrom } from './pg-copy';

/** A pg client that plays the server's side of COPY FROM STDIN for the submittable it is given. */
function copyingManager(serverError?: Error) {
  const sent = { statements: [] as string[], chunks: [] as Buffer[], ended: false };
  const connection = {
    query: (text: string) => sent.statements.push(text),
    sendCopyFromChunk: (chunk: Buffer) => sent.chunks.push(Buffer.from(chunk)),
    endCopyFrom: () => (sent.ended = true),
  };
  interface Submittable {
    submit(connection: unknown): void;
    handleCopyInResponse(connection: unknown): void;
    handleCommandComplete(): void;
    handleError(error: Error): void;
    handleReadyForQuery(): void;
  }
  const client = {
    query(copy: Submittable) {
      copy.submit(connection);
      copy.handleCopyInResponse(connection);
      if (serverError === undefined) copy.handleCommandComplete();
      else copy.handleError(serverError);
      copy.handleReadyForQuery();
    },
  };
  const manager = { queryRunner: { databaseConnection: client } } as unknown as EntityManager;
  return { manager, sent };
}

describe('copyField', () => {
  it('given text with backslash, tab, newline and carriage return, when encoded, then each is escaped', () => {
    expect(copyField('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
  });

  it('given plain text or a number, when encoded, then it is unchanged', () => {
    expect(copyField('{"a":"é"}')).toBe('{"a":"é"}');
    expect(copyField(42)).toBe('42');
  });

  it('given null or undefined, when encoded, then it is \\N', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField(undefined)).toBe('\\N');
  });
});

describe('copyFrom', () => {
  it('given rows, when copied, then the statement names the target and the rows go in 64 KiB chunks', async () => {
    const { manager, sent } = copyingManager();
    const rows = `${'x'.repeat(100 * 1024)}\n`;

    await copyFrom(manager, 'events (a, b)', rows);

    expect(sent.statements).toEqual(['COPY events (a, b) FROM STDIN']);
    expect(sent.chunks.map((chunk) => chunk.length)).toEqual([64 * 1024, rows.length - 64 * 1024]);
    expect(Buffer.concat(sent.chunks).toString('utf8')).toBe(rows);
    expect(sent.ended).toBe(true);
  });

  it('given the server refuses the data, when copied, then it rejects with the server error', async () => {
    const { manager } = copyingManager(new Error('invalid input syntax for type uuid'));

    await expect(copyFrom(manager, 'events (a)', 'x\n')).rejects.toThrow('invalid input syntax for type uuid');
  });

  it('given a manager outside a query runner, when copied, then it rejects', async () => {
    await expect(copyFrom({} as EntityManager, 'events (a)', 'x\n')).rejects.toThrow(/query runner/);
  });
});
