import { Inject, Injectable, Logger } from '@nestjs/common';
import { pipeline } from 'node:stream/promises';
import { EXPORT_CONTENT_TYPES } from '@lx/contracts';
import {
  type ExportFile,
  exportFailureMessage,
  exportFilename,
  exportObjectKey,
  type ExportRequest,
  exportRetryDelaySeconds,
} from '@lx/domain';
import { Clock, contextOfTraceParent, inSpan, SpanKind, tracerOf } from '@lx/platform';
import { ObjectStore } from '@lx/storage';
import { EXPORT_WORKER_CONFIG, type ExportWorkerConfig } from '../../config/export-worker.config';
import { ExportEventsPublisher } from '../infrastructure/export-events.publisher';
import { ExportMetrics } from '../infrastructure/export-metrics';
import { type ClaimedExport, ExportRequestRepository } from '../infrastructure/export-request.repository';
import { LocationSource } from '../infrastructure/location-source';
import { Digest, ExportFileWriter } from './export-file';
import { SpreadsheetSafeCsv } from './spreadsheet-safe-csv';

const tracer = tracerOf('export-worker');

/** How one claimed attempt ended. */
export type AttemptOutcome = 'completed' | 'failed' | 'retried' | 'interrupted' | 'lost';

/** Stops an attempt from outside: the service shuts down, or the lease was lost to another replica. */
export class AttemptAborted extends Error {
  constructor(readonly reason: 'shutdown' | 'lease-lost') {
    super(reason === 'shutdown' ? 'the service is shutting down' : 'the lease was taken over by another replica');
  }
}

/**
 * Generates one claimed export: fence a watermark, stream the snapshot (a json one with its groups; a spreadsheet-safe
 * csv one through SpreadsheetSafeCsv) through the file writer into object storage (multipart, constant memory), sign
 * the download link, then mark the request COMPLETED and append EXPORT_COMPLETED in one transaction. A failed attempt
 * is retried after a growing delay; the last allowed attempt marks it FAILED with EXPORT_GENERATION_FAILED and its
 * event. Every change is conditional on the lease, so an attempt that lost its lease changes nothing; each attempt
 * writes its own object, so a late one never overwrites a completed file. A request that ends (COMPLETED or FAILED)
 * removes the objects its other attempts may have left. Each attempt is a span continuing the trace of the request
 * that asked for the export (its snapshot reads and its event descend from it), when tracing is on.
 */
@Injectable()
export class GenerateExportHandler {
  private readonly logger = new Logger(GenerateExportHandler.name);

  constructor(
    private readonly requests: ExportRequestRepository,
    private readonly source: LocationSource,
    private readonly store: ObjectStore,
    private readonly events: ExportEventsPublisher,
    private readonly metrics: ExportMetrics,
    private readonly clock: Clock,
    @Inject(EXPORT_WORKER_CONFIG) private readonly config: ExportWorkerConfig,
  ) {}

  execute(claim: ClaimedExport, signal: AbortSignal): Promise<AttemptOutcome> {
    const settings = {
      kind: SpanKind.CONSUMER,
      parent: contextOfTraceParent(claim.traceParent),
      attributes: {
        'lx.export.id': claim.request.id,
        'lx.export.format': claim.request.format,
        'lx.attempt': claim.attempt,
      },
    };
    return inSpan(tracer, `export ${claim.request.format}`, settings, async (span) => {
      const outcome = await this.attempt(claim, signal);
      span.setAttribute('lx.export.outcome', outcome);
      return outcome;
    });
  }

  private async attempt(claim: ClaimedExport, signal: AbortSignal): Promise<AttemptOutcome> {
    const { request, attempt } = claim;
    if (attempt > this.config.jobs.maxAttempts) {
      // Earlier attempts died with their replica (the lease lapsed): give up rather than crash-loop.
      return this.failFinally(claim, `generation was interrupted ${attempt - 1} times`);
    }
    const started = process.hrtime.bigint();
    const objectKey = exportObjectKey(request, attempt);
    let stored = false;
    let file: ExportFile;
    try {
      file = await this.generate(claim, objectKey, signal, () => (stored = true));
      const completed: ExportRequest = { ...request, status: 'COMPLETED', file };
      const done = await this.requests.transaction(async (manager) => {
        if (!(await this.requests.complete(manager, claim, file))) return false;
        await this.events.append(manager, completed);
        return true;
      });
      if (!done) throw new AttemptAborted('lease-lost');
    } catch (error) {
      if (stored) await this.store.remove(objectKey).catch(() => undefined);
      return this.afterFailure(claim, error);
    }
    // Committed: the file is the request's now, and nothing below removes it.
    await this.removeAttempts(request, attempt - 1);
    this.metrics.outcome(request.format, 'completed');
    this.metrics.rows.inc({ format: request.format }, file.totalCount);
    this.metrics.duration.observe({ format: request.format }, Number(process.hrtime.bigint() - started) / 1e9);
    this.logger.log({ msg: 'Export completed', requestId: request.id, rows: file.totalCount, bytes: file.sizeBytes });
    return 'completed';
  }

  private async generate(
    claim: ClaimedExport,
    objectKey: string,
    signal: AbortSignal,
    onStored: () => void,
  ): Promise<ExportFile> {
    const { request } = claim;
    const watermark = await this.source.watermark();
    const snapshot = await this.source.snapshot(request, request.format, request.includeVersions === true);
    const abort = () => snapshot.stream.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    const writer = new ExportFileWriter(request.format, {
      exportTimestamp: watermark.toISOString(),
      totalCount: snapshot.totalCount,
      ...(snapshot.groupCounts === undefined ? {} : { groupCounts: snapshot.groupCounts }),
    });
    const digest = new Digest();
    const heartbeat = this.heartbeat(claim, writer, snapshot.totalCount, (lost) => snapshot.stream.destroy(lost));
    try {
      await this.requests.renewLease(claim, this.config.jobs.leaseSeconds, 0, snapshot.totalCount);
      const upload = this.store.put(objectKey, digest, { contentType: EXPORT_CONTENT_TYPES[request.format] });
      upload.catch((error: unknown) =>
        snapshot.stream.destroy(error instanceof Error ? error : new Error(String(error))),
      );
      const cells = request.spreadsheetSafe === true ? [new SpreadsheetSafeCsv()] : [];
      const [, { size }] = await Promise.all([pipeline([snapshot.stream, ...cells, writer, digest]), upload]);
      onStored();
      const now = this.clock.now();
      const fileExpiresAt = new Date(now.getTime() + this.config.files.retentionSeconds * 1000);
      const link = await this.store.presignGet(objectKey, {
        expiresInSeconds: Math.min(this.config.files.linkTtlSeconds, this.config.files.retentionSeconds),
        filename: exportFilename(request),
        contentType: EXPORT_CONTENT_TYPES[request.format],
        now,
      });
      return {
        exportUrl: link.url,
        downloadExpiresAt: link.expiresAt.toISOString(),
        exportTimestamp: watermark.toISOString(),
        totalCount: writer.rows,
        sha256: digest.hex(),
        sizeBytes: size,
        objectKey,
        fileExpiresAt: fileExpiresAt.toISOString(),
      };
    } finally {
      clearInterval(heartbeat);
      signal.removeEventListener('abort', abort);
    }
  }

  /** Renews the lease and records progress a few times per lease; a lost lease stops the stream. */
  private heartbeat(
    claim: ClaimedExport,
    writer: ExportFileWriter,
    total: number,
    stop: (error: Error) => void,
  ): NodeJS.Timeout {
    const interval = (this.config.jobs.leaseSeconds * 1000) / 3;
    return setInterval(() => {
      this.requests.renewLease(claim, this.config.jobs.leaseSeconds, writer.rows, total).then(
        (held) => held || stop(new AttemptAborted('lease-lost')),
        (error: unknown) =>
          this.logger.warn({ msg: 'Lease renewal failed', requestId: claim.request.id, err: String(error) }),
      );
    }, interval);
  }

  private async afterFailure(claim: ClaimedExport, error: unknown): Promise<AttemptOutcome> {
    const { request, attempt } = claim;
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof AttemptAborted && error.reason === 'lease-lost') {
      this.logger.warn({ msg: 'Export attempt lost its lease', requestId: request.id, attempt });
      return 'lost';
    }
    if (error instanceof AttemptAborted) {
      // Not the export's fault: hand it back uncounted, at once, for another replica.
      await this.requests.giveBack(claim).catch(() => undefined);
      this.metrics.outcome(request.format, 'interrupted');
      return 'interrupted';
    }
    if (attempt >= this.config.jobs.maxAttempts) return this.failFinally(claim, reason);
    const delay = exportRetryDelaySeconds(attempt, this.config.jobs.retryDelaySeconds);
    const next = new Date(this.clock.now().getTime() + delay * 1000);
    await this.requests.release(claim, next, reason);
    this.metrics.outcome(request.format, 'retried');
    this.logger.warn({
      msg: 'Export attempt failed; retrying',
      requestId: request.id,
      attempt,
      retryInSeconds: delay,
      reason,
    });
    return 'retried';
  }

  /**
   * Removes the objects that attempts 1 to `last` may have left (one whose replica died after its upload and before
   * completing): best effort, since retention removes them later anyway (PurgeExpiredExportsSchedule).
   */
  private async removeAttempts(request: ExportRequest, last: number): Promise<void> {
    for (let attempt = 1; attempt <= last; attempt += 1) {
      await this.store.remove(exportObjectKey(request, attempt)).catch((error: unknown) =>
        this.logger.warn({
          msg: "Could not remove an earlier attempt's object",
          requestId: request.id,
          attempt,
          err: String(error),
        }),
      );
    }
  }

  private async failFinally(claim: ClaimedExport, reason: string): Promise<AttemptOutcome> {
    const { request, attempt } = claim;
    // The RSP reads what it can act on; the cause (peer URLs, statuses) stays in the log line below.
    const message = exportFailureMessage(request.id, Math.min(attempt, this.config.jobs.maxAttempts));
    const failed: ExportRequest = {
      ...request,
      status: 'FAILED',
      error: { code: 'EXPORT_GENERATION_FAILED', message },
    };
    const done = await this.requests.transaction(async (manager) => {
      if (!(await this.requests.fail(manager, claim, message))) return false;
      await this.events.append(manager, failed);
      return true;
    });
    if (!done) return 'lost';
    await this.removeAttempts(request, attempt);
    this.metrics.outcome(request.format, 'failed');
    this.logger.error({ msg: 'Export failed', requestId: request.id, attempt, reason });
    return 'failed';
  }
}
