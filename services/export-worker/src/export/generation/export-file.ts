import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { csvRecord, type ExportFormat, LOCATION_CSV_COLUMNS } from '@lx/contracts';

/** What the file writer knows before the first location. */
export interface ExportFileHeader {
  exportTimestamp: string;
  totalCount: number;
}

const LF = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;

/**
 * Turns the snapshot into the export file byte for byte, with constant memory and without decoding or parsing a
 * location: the read model stores every location both as served JSON and as its CSV record, and the snapshot streams
 * the one the format needs.
 * - JSON: the snapshot is NDJSON; the file is `{"exportTimestamp","totalCount","locations":[…]}` with each line
 *   copied verbatim as an element. JSON text never holds a raw LF, so every LF ends a line: it is dropped, and a comma
 *   is written before the next line.
 * - CSV: the snapshot is CRLF-terminated records; the file is the header row of LOCATION_CSV_COLUMNS, then the records
 *   as they come. A record ends at a LF outside quotes (a quoted cell may hold line breaks; RFC 4180).
 * `rows` counts the locations written; the stream fails if the snapshot ends in the middle of a location, holds an
 * empty line, or holds another number of locations than announced.
 */
export class ExportFileWriter extends Transform {
  rows = 0;
  /** The bytes so far end a location (true before the first byte). */
  private atBoundary = true;
  /** CSV: inside a quoted cell. */
  private inQuotes = false;

  constructor(
    private readonly format: ExportFormat,
    private readonly header: ExportFileHeader,
  ) {
    super({ writableHighWaterMark: 1 << 16, readableHighWaterMark: 1 << 16 });
    this.push(
      format === 'json'
        ? `{"exportTimestamp":${JSON.stringify(header.exportTimestamp)},"totalCount":${header.totalCount},"locations":[`
        : csvRecord(LOCATION_CSV_COLUMNS),
    );
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (chunk.length === 0) return callback();
    try {
      callback(null, this.format === 'json' ? this.jsonElements(chunk) : this.csvRecords(chunk));
    } catch (error) {
      callback(error instanceof Error ? error : new Error(String(error)));
    }
  }

  override _flush(callback: TransformCallback): void {
    if (!this.atBoundary) {
      callback(new Error('the snapshot ended in the middle of a location'));
      return;
    }
    if (this.rows !== this.header.totalCount) {
      callback(new Error(`the snapshot announced ${this.header.totalCount} locations and held ${this.rows}`));
      return;
    }
    if (this.format === 'json') this.push(']}');
    callback();
  }

  /** NDJSON bytes as array elements: at most one byte longer than the chunk (a comma before its first line). */
  private jsonElements(chunk: Buffer): Buffer {
    const out = Buffer.allocUnsafe(chunk.length + 1);
    let length = 0;
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(LF, start);
      const stop = end === -1 ? chunk.length : end;
      if (stop > start) {
        if (this.atBoundary && this.rows > 0) out[length++] = COMMA;
        length += chunk.copy(out, length, start, stop);
        this.atBoundary = false;
      }
      if (end === -1) break;
      if (this.atBoundary) throw new Error('the snapshot holds an empty line');
      this.rows += 1;
      this.atBoundary = true;
      start = end + 1;
    }
    return out.subarray(0, length);
  }

  /** CSV records pass as they are; only their ends are counted (quote parity: a doubled quote toggles twice). */
  private csvRecords(chunk: Buffer): Buffer {
    let quote = chunk.indexOf(QUOTE);
    let lf = chunk.indexOf(LF);
    for (;;) {
      if (!this.inQuotes && lf !== -1 && (quote === -1 || lf < quote)) {
        this.rows += 1;
        lf = chunk.indexOf(LF, lf + 1);
      } else if (quote !== -1) {
        this.inQuotes = !this.inQuotes;
        if (lf !== -1 && lf < quote) lf = chunk.indexOf(LF, quote + 1);
        quote = chunk.indexOf(QUOTE, quote + 1);
      } else {
        break;
      }
    }
    this.atBoundary = !this.inQuotes && chunk[chunk.length - 1] === LF;
    return chunk;
  }
}

/** Passes bytes through and measures them: the SHA-256 (hex) and size of the stored file. */
export class Digest extends Transform {
  sizeBytes = 0;
  private readonly hash = createHash('sha256');

  override _transform(chunk: Buffer | string, encoding: BufferEncoding, callback: TransformCallback): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
    this.hash.update(bytes);
    this.sizeBytes += bytes.length;
    callback(null, bytes);
  }

  hex(): string {
    return this.hash.digest('hex');
  }
}
