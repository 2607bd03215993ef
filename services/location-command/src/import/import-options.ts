/** Settings of bulk imports (IMPORT_* variables). */
export interface ImportOptions {
  /** Rows decided and written per transaction. */
  batchSize: number;
  /** Longest accepted NDJSON line or CSV record. */
  maxRowBytes: number;
  /** Rejections listed one by one in a report. */
  maxReportedRejections: number;
}

export const IMPORT_OPTIONS = Symbol('IMPORT_OPTIONS');
