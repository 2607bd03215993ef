import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { csvRecord, type ExportFormat, LOCATION_CSV_COLUMNS } from '@lx/contracts';

/** What the file writer knows before the first location. */
export interface ExportFileHeader {
  exportTimestamp: string;
  totalCount: number;
  /** json: how many location group lines, then address group lines, follow the locations; absent: no group arrays. */
  groupCounts?: { locationGroups: number; addressGroups: number };
}

const LF = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;

/** The arrays of a json file in order: each filled from as many snapshot lines as announced. */
const JSON_ARRAYS = [
  { key: 'locations', noun: 'locations' },
  { key: 'locationGroups', noun: 'location groups' },
  { key: 'addressGroups', noun: 'address groups' },
] as const;
/** What closes one array and opens the next, by the index of the next. */
const ARRAY_OPENERS = JSON_ARRAYS.map(({ key }) => Buffer.from(`],${JSON.stringify(key)}:[`));

/**
 * Turns the snapshot into the export file byte for byte, with constant memory and without decoding or parsing a
 * location: the read model stores every location both as served JSON and as its CSV record, and the snapshot streams
 * the one the format needs.
 * - JSON: the snapshot is NDJSON; the file is `{"exportTimestamp","totalCount","locations":[…]}`, with the group
 *   arrays `"locationGroups":[…],"addressGroups":[…]` after the locations when the snapshot announced groups, each
 *   line copied verbatim as an element. The announced counts say which array a line belongs to: the first totalCount
 *   lines are locations, the next ones location groups, then address groups. JSON text never holds a raw LF, so every
 *   LF ends a line: it is dropped, and a comma (or the next array's opening) is written before the next line.
 * - CSV: the snapshot is CRLF-terminated records; the file is the header row of LOCATION_CSV_COLUMNS, then the records
 *   as they come. A record ends at a LF outside quotes (a quoted cell may hold line breaks; RFC 4180).
 * `rows` counts the locations written; the stream fails if the snapshot ends in the middle of a line, holds an empty
 * line, or holds another number of locations (or groups) than announced.
 */
export class ExportFileWriter extends Transform {
  rows = 0;
  /** The bytes so far end a location (true before the first byte). */
  private atBoundary = true;
  /** CSV: where the records end. */
  private readonly csvEnds = new CsvRecordEnds();
  /** JSON: the lines each array takes, in JSON_ARRAYS order. */
  private readonly arrayLines: readonly number[];
  /** JSON: the array being filled, and how many lines it holds so far. */
  private array = 0;
  private lines = 0;

  constructor(
    private readonly format: ExportFormat,
    private readonly header: ExportFileHeader,
  ) {
    super({ writableHighWaterMark: 1 << 16, readableHighWaterMark: 1 << 16 });
    const groups = header.groupCounts;
    this.arrayLines =
      groups === undefined ? [header.totalCount] : [header.totalCount, groups.locationGroups, groups.addressGroups];
    this.push(
      format === 'json'
        ? `{"exportTimestamp":${JSON.stringify(header.exportTimestamp)},"totalCount":${header.totalCount},"locations":[`
        : csvRecord(LOCATION_CSV_COLUMNS),
    );
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (chunk.length === 0) return callback();
    try {
      if (this.format === 'csv') {
        callback(null, this.csvRecords(chunk));
        return;
      }
      for (const piece of this.jsonElements(chunk)) this.push(piece);
      callback();
    } catch (error) {
      callback(error instanceof Error ? error : new Error(String(error)));
    }
  }

  override _flush(callback: TransformCallback): void {
    if (!this.atBoundary) {
      callback(new Error('the snapshot ended in the middle of a location'));
      return;
    }
    if (this.format === 'csv') {
      if (this.rows !== this.header.totalCount) {
        callback(new Error(`the snapshot announced ${this.header.totalCount} locations and held ${this.rows}`));
        return;
      }
      callback();
      return;
    }
    const closing: Buffer[] = [];
    for (;;) {
      const announced = this.arrayLines[this.array]!;
      if (this.lines !== announced) {
        const { noun } = JSON_ARRAYS[this.array]!;
        callback(new Error(`the snapshot announced ${announced} ${noun} and held ${this.lines}`));
        return;
      }
      if (this.array === this.arrayLines.length - 1) break;
      this.array += 1;
      this.lines = 0;
      closing.push(ARRAY_OPENERS[this.array]!);
    }
    closing.push(Buffer.from(']}'));
    callback(null, Buffer.concat(closing));
  }

  /**
   * NDJSON bytes as array elements, written into the chunk itself rather than a copy of it: the LF that ends a line
   * becomes the comma before the next line of the same array (the counts say whether one follows), and is dropped
   * after an array's last line, where the chunk is cut to let the next array's opening in. No buffer is allocated per
   * chunk: every one would be garbage outside the V8 heap, and such garbage is collected only once tens of MB of it
   * have piled up (docs/operations.md, *Memory*). The chunk is this stream's to change: a snapshot chunk is read
   * once, by this writer alone.
   */
  private jsonElements(chunk: Uint8Array): Uint8Array[] {
    const pieces: Uint8Array[] = [];
    /** Where the bytes not yet handed on begin. */
    let from = 0;
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(LF, start);
      const stop = end === -1 ? chunk.length : end;
      if (stop > start) {
        if (this.atBoundary && this.lines === this.arrayLines[this.array] && this.array < this.arrayLines.length - 1) {
          // A line starts past a full array (the last one takes any extra line, refused at the end): the openings.
          if (start > from) pieces.push(chunk.subarray(from, start));
          from = start;
          while (this.lines === this.arrayLines[this.array] && this.array < this.arrayLines.length - 1) {
            this.array += 1;
            this.lines = 0;
            pieces.push(ARRAY_OPENERS[this.array]!);
          }
        }
        this.atBoundary = false;
      }
      if (end === -1) break;
      if (this.atBoundary) throw new Error('the snapshot holds an empty line');
      this.lines += 1;
      if (this.array === 0) this.rows += 1;
      this.atBoundary = true;
      if (this.lines < this.arrayLines[this.array]!) {
        chunk[end] = COMMA;
      } else {
        if (end > from) pieces.push(chunk.subarray(from, end));
        from = end + 1;
      }
      start = end + 1;
    }
    if (chunk.length > from) pieces.push(from === 0 ? chunk : chunk.subarray(from));
    return pieces;
  }

  /** CSV records pass as they are; only their ends are counted. */
  private csvRecords(chunk: Buffer): Buffer {
    this.rows += this.csvEnds.scan(chunk).records;
    this.atBoundary = !this.csvEnds.inQuotes && chunk[chunk.length - 1] === LF;
    return chunk;
  }
}

/**
 * Finds where CSV records end in a stream of chunks: at a LF outside quotes (a quoted cell may hold line breaks; RFC
 * 4180), by quote parity carried from chunk to chunk (a doubled quote toggles twice).
 */
export class CsvRecordEnds {
  /** The bytes so far end inside a quoted cell. */
  inQuotes = false;

  /** How many records end in `chunk`, and the index of the LF that ends the last of them (-1 when none). */
  scan(chunk: Uint8Array): { records: number; lastEnd: number } {
    let records = 0;
    let lastEnd = -1;
    let quote = chunk.indexOf(QUOTE);
    let lf = chunk.indexOf(LF);
    for (;;) {
      if (!this.inQuotes && lf !== -1 && (quote === -1 || lf < quote)) {
        records += 1;
        lastEnd = lf;
        lf = chunk.indexOf(LF, lf + 1);
      } else if (quote !== -1) {
        this.inQuotes = !this.inQuotes;
        if (lf !== -1 && lf < quote) lf = chunk.indexOf(LF, quote + 1);
        quote = chunk.indexOf(QUOTE, quote + 1);
      } else {
        return { records, lastEnd };
      }
    }
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
