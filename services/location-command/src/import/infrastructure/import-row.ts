import type { ValidationIssue } from '@lx/contracts';

/** One data row of an import file, decoded but not yet validated. */
export interface ImportRow {
  /** 1-based line number in the file (for CSV the line where the record ends; the header is line 1). */
  line: number;
  /** The row's `id` as written, `undefined` when it has none. */
  id: string | undefined;
  /** The location body: the row's fields (an NDJSON row keeps its id and timestamps; the rules ignore them). */
  body: unknown;
  /** Problems that keep the row from being read at all (not JSON, broken custom field JSON, too long). */
  issues: ValidationIssue[];
}

/** A file that cannot be read on: unreadable header, broken CSV quoting, a client that went away. */
export class ImportFileError extends Error {
  constructor(
    message: string,
    readonly line: number | undefined,
    readonly issues: ValidationIssue[] = [],
  ) {
    super(message);
  }
}

/** Limits of the readers; rows are yielded in small arrays to keep per-row async overhead low. */
export interface RowReaderOptions {
  maxRowBytes: number;
}
