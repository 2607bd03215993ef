import type { ImportMode, ImportReport, ImportRejection } from '@lx/contracts';

export { IMPORT_MODES, type ImportMode, type ImportRejection, type ImportReport } from '@lx/contracts';

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
