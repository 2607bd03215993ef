import type { Connection, Submittable } from 'pg';

/** What a COPY hands on: batches of the column's bytes, and its end. */
export interface CopySink {
  /** A batch of whole rows' bytes, back to back; false asks to pause (the consumer's buffer is full). */
  push(bytes: Buffer): boolean;
}

/** The file header of COPY's binary format: the signature, then flags and the length of an extension area. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER_BYTES = SIGNATURE.length + 8;
/** Bytes of one row's framing with one column: the field count (int16), then the value's length (int32). */
const ROW_FRAMING_BYTES = 6;
/** The size of the batches handed on; a larger row is handed on by itself. */
const BATCH_BYTES = 128 * 1024;

/**
 * `COPY (SELECT <one text column> …) TO STDOUT (FORMAT binary)` on a node-postgres client, which has no COPY of its
 * own (a Submittable, as the pg-copy-streams package does it): hands on each row's value as the bytes the server sent,
 * row after row, in batches. No row becomes a JavaScript string or a row object, which reading the same rows through
 * a cursor costs per row (node-postgres decodes every value, and the stream encodes it again); the server streams
 * without a round trip per batch of rows. The binary format carries a text value as its bytes with a length before
 * it (the text format would escape backslashes, which JSON holds).
 *
 * Back-pressure: when the sink is full the connection's socket is paused, so the server waits on TCP; `resume()`
 * reads on. `abort()` cuts the connection (the server would otherwise stream the rest of the COPY before it reads
 * anything): the caller must already have handed the client back to its pool with an error, so it is not reused.
 * `done` settles when the server has ended the COPY (rejected on its error, a malformed row or a NULL value).
 */
export class BinaryCopyOut implements Submittable {
  readonly done: Promise<void>;
  private connection?: Connection;
  private settle!: (error?: Error) => void;
  private finished = false;
  private aborted = false;
  private headerRead = false;
  private trailerRead = false;
  /** Bytes of a row split across messages (the server sends a row per message, but need not). */
  private pending?: Buffer;
  private batch = Buffer.allocUnsafe(BATCH_BYTES);
  private filled = 0;

  constructor(
    private readonly text: string,
    private readonly sink: CopySink,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (error) => {
        if (this.finished) return;
        this.finished = true;
        if (error === undefined) resolve();
        else reject(error);
      };
    });
  }

  submit(connection: Connection): void {
    this.connection = connection;
    connection.query(this.text);
  }

  resume(): void {
    if (!this.finished) this.connection?.stream.resume();
  }

  abort(): void {
    this.settle(new Error('the COPY was aborted'));
    this.abortConnection();
  }

  /** node-postgres: a CopyData message; `chunk` is a view of the client's read buffer, copied before it returns. */
  handleCopyData(message: { chunk: Buffer }): void {
    if (this.finished) return;
    try {
      this.take(message.chunk);
    } catch (error) {
      this.settle(error instanceof Error ? error : new Error(String(error)));
      this.abortConnection();
    }
  }

  handleCommandComplete(): void {
    if (this.finished) return;
    if (!this.trailerRead || this.pending !== undefined) {
      this.settle(new Error('the COPY ended without its trailer'));
      return;
    }
    this.flush();
  }

  handleReadyForQuery(): void {
    this.readOn();
    this.settle();
  }

  handleError(error: Error): void {
    this.readOn();
    this.settle(error);
  }

  private take(chunk: Buffer): void {
    const data = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    let at = 0;
    if (!this.headerRead) {
      if (data.length < HEADER_BYTES) {
        this.pending = Buffer.from(data);
        return;
      }
      if (!data.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('the COPY is not in binary format');
      const extension = data.readUInt32BE(SIGNATURE.length + 4);
      if (data.length < HEADER_BYTES + extension) {
        this.pending = Buffer.from(data);
        return;
      }
      at = HEADER_BYTES + extension;
      this.headerRead = true;
    }
    while (at < data.length) {
      if (this.trailerRead) throw new Error('the COPY holds bytes after its trailer');
      if (data.length - at < 2) break;
      const fields = data.readInt16BE(at);
      if (fields === -1) {
        this.trailerRead = true;
        at += 2;
        continue;
      }
      if (fields !== 1) throw new Error(`a COPY row holds ${fields} columns, expected 1`);
      if (data.length - at < ROW_FRAMING_BYTES) break;
      const length = data.readInt32BE(at + 2);
      if (length < 0) throw new Error('a COPY row holds NULL');
      if (data.length - at - ROW_FRAMING_BYTES < length) break;
      this.write(data, at + ROW_FRAMING_BYTES, at + ROW_FRAMING_BYTES + length);
      at += ROW_FRAMING_BYTES + length;
    }
    if (at < data.length) this.pending = Buffer.from(data.subarray(at));
  }

  private write(data: Buffer, start: number, end: number): void {
    const length = end - start;
    if (this.filled + length > this.batch.length) this.flush();
    if (length > this.batch.length) {
      this.hand(Buffer.from(data.subarray(start, end)));
      return;
    }
    this.filled += data.copy(this.batch, this.filled, start, end);
  }

  private flush(): void {
    if (this.filled === 0) return;
    const bytes = this.batch.subarray(0, this.filled);
    this.batch = Buffer.allocUnsafe(BATCH_BYTES);
    this.filled = 0;
    this.hand(bytes);
  }

  private hand(bytes: Buffer): void {
    if (!this.sink.push(bytes)) this.connection?.stream.pause();
  }

  /**
   * The COPY is over and the connection serves the next query: its socket must not stay paused (the last batch may
   * have found the sink full), or the reply to that query would never be read.
   */
  private readOn(): void {
    if (!this.aborted) this.connection?.stream.resume();
  }

  private abortConnection(): void {
    this.aborted = true;
    const stream = this.connection?.stream as { destroy?: () => void } | undefined;
    stream?.destroy?.();
  }
}
