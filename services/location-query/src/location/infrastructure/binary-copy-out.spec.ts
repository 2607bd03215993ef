import type { Connection } from 'pg';
import { BinaryCopyOut } from './binary-copy-out';

/** COPY's binary format of one text column: the header, a row per value (field count 1, length, bytes), the trailer. */
function binaryCopy(values: readonly string[], extension = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(19);
  Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1').copy(header);
  header.writeUInt32BE(extension.length, 15);
  const rows = values.map((value) => {
    const bytes = Buffer.from(value);
    const framing = Buffer.alloc(6);
    framing.writeInt16BE(1, 0);
    framing.writeInt32BE(bytes.length, 2);
    return Buffer.concat([framing, bytes]);
  });
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1, 0);
  return Buffer.concat([header, extension, ...rows, trailer]);
}

/** Runs a COPY over `messages` as node-postgres would hand them on; what the sink got, and how it ended. */
async function copyOf(messages: readonly Buffer[], full = () => false) {
  const pushed: Buffer[] = [];
  const socket = { pause: jest.fn(), resume: jest.fn(), destroy: jest.fn() };
  const copy = new BinaryCopyOut('COPY …', {
    push: (bytes) => {
      pushed.push(Buffer.from(bytes));
      return !full();
    },
  });
  copy.submit({ query: jest.fn(), stream: socket } as unknown as Connection);
  for (const message of messages) {
    // node-postgres hands on a view of its read buffer and reuses it: the copy must not keep it.
    const reused = Buffer.from(message);
    copy.handleCopyData({ chunk: reused });
    reused.fill(0);
  }
  copy.handleCommandComplete();
  copy.handleReadyForQuery();
  const outcome = await copy.done.then(
    () => 'done',
    (error: Error) => error.message,
  );
  return { text: Buffer.concat(pushed).toString(), pushed, socket, outcome };
}

describe('BinaryCopyOut', () => {
  const values = ['{"a":"\\\\ é"}\n', '{"b":2}\n', 'x,"y\r\nz"\r\n'];

  it('hands on the values back to back, however the messages split the rows', async () => {
    const bytes = binaryCopy(values, Buffer.from('ext'));
    for (const size of [1, 2, 5, 7, 19, bytes.length]) {
      const messages: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) messages.push(bytes.subarray(at, at + size));
      const { text, outcome } = await copyOf(messages);
      expect(outcome).toBe('done');
      expect(text).toBe(values.join(''));
    }
  });

  it('hands on batches of whole rows, and a row larger than a batch by itself', async () => {
    const large = 'L'.repeat(200 * 1024);
    const many = Array.from({ length: 3000 }, (_, index) => `${'r'.repeat(90)}${index}\n`);
    const { pushed, text } = await copyOf([binaryCopy([...many, large, 'end\n'])]);
    expect(text).toBe([...many, large, 'end\n'].join(''));
    expect(pushed.length).toBeGreaterThan(2);
    expect(pushed.some((batch) => batch.toString() === large)).toBe(true);
  });

  it('given a full sink, then the socket is paused, and read on once the COPY is over', async () => {
    const { socket } = await copyOf([binaryCopy(Array.from({ length: 5000 }, () => 'x'.repeat(100)))], () => true);
    expect(socket.pause).toHaveBeenCalled();
    // The last batch, handed on at the end, found the sink full too: the connection's next query needs the socket.
    expect(socket.resume.mock.invocationCallOrder.at(-1)).toBeGreaterThan(
      socket.pause.mock.invocationCallOrder.at(-1)!,
    );
  });

  it.each([
    ['a NULL value', () => Buffer.from([0, 1, 0xff, 0xff, 0xff, 0xff])],
    ['two columns', () => Buffer.from([0, 2, 0, 0, 0, 0, 0, 0, 0, 0])],
  ])('given %s, then it fails and cuts the connection', async (_, row) => {
    const bytes = binaryCopy([]);
    const { outcome, socket } = await copyOf([bytes.subarray(0, 19), row()]);
    expect(outcome).toMatch(/NULL|columns/);
    expect(socket.destroy).toHaveBeenCalled();
  });

  it('given a COPY in text format or one without its trailer, then it fails', async () => {
    expect((await copyOf([Buffer.from('{"a":1}\n'.repeat(5))])).outcome).toMatch(/binary/);
    const bytes = binaryCopy(['a\n']);
    expect((await copyOf([bytes.subarray(0, bytes.length - 2)])).outcome).toMatch(/trailer/);
  });

  it('given an error of the server, then it fails with it', async () => {
    const copy = new BinaryCopyOut('COPY …', { push: () => true });
    copy.handleError(new Error('canceling statement due to statement timeout'));
    await expect(copy.done).rejects.toThrow('statement timeout');
  });
});
