import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { Transform, type TransformCallback } from 'node:stream';
import { csvRecord, type ExportFormat, LOCATION_CSV_COLUMNS, type Location, locationToCsvRow } from '@lx/contracts';

/** What the file writer knows before the first location. */
export interface ExportFileHeader {
  exportTimestamp: string;
  totalCount: number;
}

/**
 * Turns the snapshot's NDJSON (one Location per line) into the export file, with constant memory: only the current
 * partial line is held. JSON: `{"exportTimestamp","totalCount","locations":[…]}` with each line copied verbatim (the
 * read model stores each location exactly as GET /locations/{id} serves it, so no parse is needed); CSV: the header
 * row of LOCATION_CSV_COLUMNS, then one RFC 4180 record per location. `rows` counts the locations written; the
 * stream fails if the snapshot ends in the middle of a line or holds another number of lines than announced.
 */
export class ExportFileWriter extends Transform {
  rows = 0;
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';

  constructor(
    private readonly format: ExportFormat,
    private readonly header: ExportFileHeader,
  ) {
    super({ writableHighWaterMark: 1 << 20, readableHighWaterMark: 1 << 20 });
    this.push(
      format === 'json'
        ? `{"exportTimestamp":${JSON.stringify(header.exportTimestamp)},"totalCount":${header.totalCount},"locations":[`
        : csvRecord(LOCATION_CSV_COLUMNS),
    );
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const text = this.partial + this.decoder.write(chunk);
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    try {
      const out = this.linesOut(lines);
      if (out !== '') this.push(out);
      callback();
    } catch (error) {
      callback(error instanceof Error ? error : new Error(String(error)));
    }
  }

  override _flush(callback: TransformCallback): void {
    const rest = this.partial + this.decoder.end();
    if (rest !== '') {
      callback(new Error('the snapshot ended in the middle of a line'));
      return;
    }
    if (this.rows !== this.header.totalCount) {
      callback(new Error(`the snapshot announced ${this.header.totalCount} locations and held ${this.rows}`));
      return;
    }
    if (this.format === 'json') this.push(']}');
    callback();
  }

  private linesOut(lines: readonly string[]): string {
    let out = '';
    for (const line of lines) {
      if (line === '') continue;
      if (this.format === 'json') {
        out += this.rows === 0 ? line : `,${line}`;
      } else {
        out += csvRecord(locationToCsvRow(JSON.parse(line) as Location));
      }
      this.rows += 1;
    }
    return out;
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
