import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, QueryRunner } from 'typeorm';
import { decideRetirement } from '../../domain/retirement-guard';
import { ImportFileRejectedError, RetirementsNotConfirmedError } from '../../import.errors';
import { IMPORT_OPTIONS, type ImportOptions } from '../../import-options';
import { ImportFileError, type ImportRow } from '../../infrastructure/import-row';
import { ImportBatchCommitter, type InBatchTransaction } from './import-batch.committer';
import { ImportBatchPipeline, batchesOf } from './import-batch.pipeline';
import { ImportBatchPreparer } from './import-batch.preparer';
import { type ImportMode, type ImportReport, ImportReportBuilder } from './import-report';
import { MissingLocationsRetirer } from './missing-locations.retirer';

export interface ImportLocationsCommand {
  /** The file's rows in order, as the readers yield them (small arrays). */
  rows: AsyncIterable<ImportRow[]>;
  mode: ImportMode;
  /** A full replace's confirmation of how many locations it retires (needed above IMPORT_MAX_RETIRE_SHARE). */
  confirmRetirements?: number;
  correlationId?: string;
}

/**
 * POST /operator/imports: applies a file of locations row by row with the same rules as PUT, in batches.
 *
 * Each batch is decided outside any transaction (`ImportBatchPreparer`) and written in one transaction on the
 * import's own connection (`ImportBatchCommitter`), which checks what the decisions relied on and decides again if
 * anything moved meanwhile; the next batch is prepared while the previous one commits (`ImportBatchPipeline`).
 * Memory holds two batches and the capped report, whatever the file size. A full-replace import then retires every
 * location in service that the file did not name (`MissingLocationsRetirer`), unless that is more than the configured
 * share of them and the request did not confirm the number (`decideRetirement`).
 */
const EMPTY_FILE = { field: 'body', rule: 'nonEmpty', message: 'the file holds no location rows; nothing was changed' };
const EMPTY_FILE_DETAILS = (report: ImportReportBuilder) => ({ issues: [EMPTY_FILE], report: report.build() });

@Injectable()
export class ImportLocationsHandler {
  private readonly logger = new Logger(ImportLocationsHandler.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly preparer: ImportBatchPreparer,
    private readonly committer: ImportBatchCommitter,
    private readonly retirer: MissingLocationsRetirer,
    @Inject(IMPORT_OPTIONS) private readonly options: ImportOptions,
  ) {}

  async execute(command: ImportLocationsCommand): Promise<ImportReport> {
    const report = new ImportReportBuilder(command.mode, this.options.maxReportedRejections);
    const fullReplace = command.mode === 'full-replace';
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const inServiceBefore = fullReplace ? await this.retirer.begin(runner) : 0;
      const recordNamed: InBatchTransaction | undefined = fullReplace
        ? (transaction, batch) => this.retirer.recordNamed(transaction.manager, batch.ids)
        : undefined;
      await this.applyRows(command, runner, report, recordNamed);
      // An empty upload is a mistake, and as a full replace it would retire every location in service.
      if (report.build().rowsRead === 0)
        throw new ImportFileRejectedError(EMPTY_FILE.message, EMPTY_FILE_DETAILS(report));
      if (fullReplace) {
        await this.checkRetirements(runner, inServiceBefore, command.confirmRetirements, report);
        report.addRetired(await this.retirer.retireMissing(runner, command.correlationId));
      }
      const result = report.build();
      this.logger.log({ ...result, rejections: undefined, correlationId: command.correlationId }, 'Import finished');
      return result;
    } finally {
      if (fullReplace) await this.retirer.end(runner);
      await runner.release();
    }
  }

  /** Refuses to retire more than the configured share of the locations in service without a matching confirmation. */
  private async checkRetirements(
    runner: QueryRunner,
    inService: number,
    confirmed: number | undefined,
    report: ImportReportBuilder,
  ): Promise<void> {
    const wouldRetire = await this.retirer.planRetirements(runner);
    const maxShare = this.options.maxRetireShare;
    if (decideRetirement({ wouldRetire, inService, maxShare, confirmed }).retire) return;
    throw new RetirementsNotConfirmedError({
      wouldRetire,
      inService,
      maxRetireShare: maxShare,
      ...(confirmed === undefined ? {} : { confirmRetirements: confirmed }),
      report: report.build(),
    });
  }

  private async applyRows(
    command: ImportLocationsCommand,
    runner: QueryRunner,
    report: ImportReportBuilder,
    recordNamed: InBatchTransaction | undefined,
  ): Promise<void> {
    const pipeline = new ImportBatchPipeline({
      prepare: (rows, ids) => this.preparer.prepare(rows, ids, command.correlationId),
      commit: async (prepared) =>
        report.addBatch(prepared.rows.length, await this.committer.commit(prepared, runner, recordNamed)),
    });
    try {
      for await (const rows of batchesOf(command.rows, this.options.batchSize)) await pipeline.submit(rows);
      await pipeline.drain();
    } catch (error) {
      if (!(error instanceof ImportFileError)) {
        // The connection is released after this: no commit may still be running on it.
        await pipeline.drain().catch(() => undefined);
        throw error;
      }
      await pipeline.drain();
      throw new ImportFileRejectedError(error.message, {
        line: error.line,
        issues: error.issues,
        report: report.build(),
      });
    }
  }
}
