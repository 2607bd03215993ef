import { Transform, type TransformCallback } from 'node:stream';
import { spreadsheetSafeRecords } from '@lx/contracts';
import { CsvRecordEnds } from './export-file';

/**
 * The CSV snapshot of an export requested with `spreadsheetSafe`, its formula cells defused as the records stream
 * (spreadsheetSafeRecords): each chunk's whole records are rewritten at once; the bytes of a record the chunk cuts
 * wait for the next chunk. Memory: a chunk and a record. Whole records are whole UTF-8 text (they end at a LF), so no
 * character is split when decoded. A snapshot that ends inside a record is passed on as it is, for the file writer to
 * refuse.
 */
export class SpreadsheetSafeCsv extends Transform {
  private readonly ends = new CsvRecordEnds();
  /** The bytes of a record not yet ended. */
  private pending: Buffer[] = [];

  constructor() {
    super({ writableHighWaterMark: 1 << 16, readableHighWaterMark: 1 << 16 });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const { lastEnd } = this.ends.scan(chunk);
    if (lastEnd === -1) {
      this.pending.push(chunk);
      callback();
      return;
    }
    const whole = Buffer.concat([...this.pending, chunk.subarray(0, lastEnd + 1)]);
    this.pending = lastEnd + 1 < chunk.length ? [chunk.subarray(lastEnd + 1)] : [];
    try {
      callback(null, spreadsheetSafeRecords(whole.toString('utf8')));
    } catch (error) {
      callback(error instanceof Error ? error : new Error(String(error)));
    }
  }

  override _flush(callback: TransformCallback): void {
    callback(null, this.pending.length === 0 ? undefined : Buffer.concat(this.pending));
  }
}
