import type { ErrorCode } from '@lx/contracts';

/** `merge` leaves locations missing from the file as they are; `full-replace` retires them. */
export type ImportMode = 'merge' | 'full-replace';
export const IMPORT_MODES: readonly ImportMode[] = ['merge', 'full-replace'];

/** Why one row was not applied: its line, its id when it had one, and the error as the API would have answered it. */
export interface ImportRejection {
  line: number;
  id?: string;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** What an import did; the reply of POST /operator/imports. */
export interface ImportReport {
  mode: ImportMode;
  /** Data rows in the file (blank lines and the CSV header are not rows). */
  rowsRead: number;
  created: number;
  updated: number;
  /** Rows equal to the stored location: nothing recorded, no event. */
  unchanged: number;
  rejected: number;
  /** Locations missing from a full-replace file that left service as RETIRED; always 0 for a merge. */
  retired: number;
  /** The first rejected rows, in file order; `rejectionsOmitted` counts the rest. */
  rejections: ImportRejection[];
  rejectionsOmitted: number;
}

/** Row outcomes of one batch, applied to the report only once the batch has committed. */
export interface BatchOutcome {
  created: number;
  updated: number;
  unchanged: number;
  rejections: ImportRejection[];
}

/** Counts outcomes and keeps at most `maxRejections` rejections one by one, so memory stays flat for any file. */
export class ImportReportBuilder {
  private readonly report: ImportReport;

  constructor(
    mode: ImportMode,
    private readonly maxRejections: number,
  ) {
    this.report = {
      mode,
      rowsRead: 0,
      created: 0,
      updated: 0,
      unchanged: 0,
      rejected: 0,
      retired: 0,
      rejections: [],
      rejectionsOmitted: 0,
    };
  }

  addBatch(rows: number, outcome: BatchOutcome): void {
    this.report.rowsRead += rows;
    this.report.created += outcome.created;
    this.report.updated += outcome.updated;
    this.report.unchanged += outcome.unchanged;
    this.report.rejected += outcome.rejections.length;
    for (const rejection of outcome.rejections) {
      if (this.report.rejections.length < this.maxRejections) this.report.rejections.push(rejection);
      else this.report.rejectionsOmitted += 1;
    }
  }

  addRetired(count: number): void {
    this.report.retired += count;
  }

  build(): ImportReport {
    return { ...this.report, rejections: [...this.report.rejections] };
  }
}
