import type { ValidationIssue } from '@lx/contracts';
import { type ImportRow, ImportFileError, type RowReaderOptions } from './import-row';

const NEWLINE = 0x0a;

/**
 * Reads NDJSON rows from a byte stream: one JSON object per line, blank lines skipped. Lines are cut on raw bytes (a
 * newline byte never occurs inside a multi-byte UTF-8 character), and at most one line is buffered, so memory stays
 * flat; a line longer than `maxRowBytes` is rejected without being kept.
 */
export async function* ndjsonRows(
  source: AsyncIterable<Buffer | string>,
  options: RowReaderOptions,
): AsyncGenerator<ImportRow[]> {
  let line = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong = false;

  const endLine = (piece: Buffer): ImportRow | undefined => {
    line += 1;
    const tooLong = overlong || pendingBytes + piece.length > options.maxRowBytes;
    const bytes = tooLong ? undefined : pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
    pending = [];
    pendingBytes = 0;
    overlong = false;
    if (bytes === undefined) {
      return rejected(line, {
        field: '',
        rule: 'maxRowBytes',
        message: `line is longer than ${options.maxRowBytes} bytes`,
      });
    }
    return rowOf(bytes.toString('utf8'), line);
  };

  for await (const data of readable(source)) {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    const rows: ImportRow[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE, start); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      const row = endLine(chunk.subarray(start, newline));
      if (row !== undefined) rows.push(row);
      start = newline + 1;
    }
    if (start < chunk.length && !overlong) {
      const rest = chunk.subarray(start);
      pendingBytes += rest.length;
      if (pendingBytes > options.maxRowBytes) {
        overlong = true;
        pending = [];
      } else {
        // Copied: the stream may reuse the chunk's memory once we move on.
        pending.push(Buffer.from(rest));
      }
    }
    if (rows.length > 0) yield rows;
  }
  if (pendingBytes > 0 || overlong) {
    const row = endLine(Buffer.alloc(0));
    if (row !== undefined) yield [row];
  }
}

/** The source's chunks; a failing source (a client that went away) ends the import as an unreadable file. */
async function* readable(source: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer | string> {
  try {
    yield* source;
  } catch (error) {
    throw new ImportFileError(`the request body could not be read: ${String(error)}`, undefined);
  }
}

function rowOf(text: string, line: number): ImportRow | undefined {
  const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (trimmed.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    // V8's message quotes a piece of the line, which may end in half a surrogate pair: such a lone surrogate would
    // make the report unreadable to strict JSON parsers, so it becomes U+FFFD.
    const reason = wellFormed(error instanceof Error ? error.message : String(error));
    return rejected(line, { field: '', rule: 'json', message: `line is not valid JSON: ${reason}` });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return rejected(line, { field: '', rule: 'type', message: 'line must be a JSON object' });
  }
  const id = (value as Record<string, unknown>)['id'];
  // A non-string id is kept as JSON text, so the row is rejected as "id must be a UUID", not as missing.
  const idText = id === undefined || id === null ? undefined : typeof id === 'string' ? id : JSON.stringify(id);
  return { line, id: idText, body: value, issues: [] };
}

function rejected(line: number, issue: ValidationIssue): ImportRow {
  return { line, id: undefined, body: undefined, issues: [issue] };
}

/** The text with every lone UTF-16 surrogate replaced by U+FFFD (String.prototype.toWellFormed, ES2024). */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
