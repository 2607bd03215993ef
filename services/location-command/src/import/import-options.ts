/** Settings of bulk imports (IMPORT_* variables). */
export interface ImportOptions {
  /** Rows decided and written per transaction. */
  batchSize: number;
  /** Longest accepted NDJSON line or CSV record. */
  maxRowBytes: number;
  /** Rejections listed one by one in a report. */
  maxReportedRejections: number;
  /** The largest share of the locations in service a full replace retires without a confirmation of the number. */
  maxRetireShare: number;
}

export const IMPORT_OPTIONS = Symbol('IMPORT_OPTIONS');
