import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExportStatusReply } from '@lx/contracts';
import type { LxApiClient } from '../api/lx-api.client';
import { readExportFile } from '../api/export-file.reader';
import { LxSyncError } from '../errors';
import type { MirrorStore } from '../store/mirror-store';
import { rowOfExportItem } from '../sync/mirror-rows';
import { type Progress, SILENT_PROGRESS } from '../sync/progress';
import { EXPORT_TIMESTAMP } from './catch-up-feed.use-case';

type CompletedExport = Extract<ExportStatusReply, { status: 'COMPLETED' }>;

/** State key of the export being loaded (absent once it is loaded). */
export const LOADING_EXPORT_ID = 'loading.exportId';
/** State keys of an export being loaded, so a load stopped half-way goes on where it stopped. */
const LOADING = {
  exportId: LOADING_EXPORT_ID,
  modifiedSince: 'loading.modifiedSince',
  /** The export whose file is downloaded whole and checked against its sha256. */
  downloaded: 'loading.downloaded',
  items: 'loading.items',
};
/** Rows per transaction (with the count of items loaded, the resumption point). */
const BATCH = 2000;
const POLL_MS = 1000;

/**
 * Loads an export (full, or incremental with `modifiedSince`) made with `includeVersions` into the mirror: it asks for
 * one (or resumes the one being loaded), waits for it with its progress, downloads the file beside (into the system's
 * temporary folder) and checks it against the export's sha256 before a row is applied, then streams it (constant
 * memory) and applies each row only when newer than the mirror's, in batches that each store how far they got. Then
 * the mirror's export time is the file's `exportTimestamp`: every change at or before it is in the mirror.
 */
export class LoadExport {
  constructor(
    private readonly api: LxApiClient,
    private readonly store: MirrorStore,
    private readonly progress: Progress = SILENT_PROGRESS,
  ) {}

  async execute(request: { modifiedSince?: string }): Promise<{ exportTimestamp: string; rows: number }> {
    const status = await this.completedExport(request);
    const file = join(tmpdir(), `lx-sync-export-${status.requestId}.json`);
    const downloaded = (await this.store.state(LOADING.downloaded)) === status.requestId;
    if (
      !downloaded ||
      !(await stat(file).then(
        () => true,
        () => false,
      ))
    )
      await this.download(status, file);
    const skip = Number((await this.store.state(LOADING.items)) ?? '0');
    this.progress.start(skip > 0 ? 'loading (resumed)' : 'loading', status.totalCount);
    let exportTimestamp: string | undefined;
    let items = 0;
    let batch: ReturnType<typeof rowOfExportItem>[] = [];
    const flush = async (done: boolean) => {
      const rows = batch;
      batch = [];
      await this.store.transaction(async (transaction) => {
        for (const { resource, row } of rows) await transaction.apply(resource, row);
        if (!done) return transaction.setState(LOADING.items, String(items));
        await transaction.setState(EXPORT_TIMESTAMP, exportTimestamp!);
        for (const key of Object.values(LOADING)) await transaction.deleteState(key);
      });
      this.progress.update(Math.min(items, status.totalCount));
    };
    try {
      for await (const item of readExportFile(createReadStream(file))) {
        if (item.kind === 'header') {
          exportTimestamp = item.exportTimestamp;
          continue;
        }
        items++;
        if (items <= skip) continue;
        batch.push(rowOfExportItem(item.kind, item.value));
        if (batch.length >= BATCH) await flush(false);
      }
    } catch (error) {
      if (error instanceof LxSyncError) throw error;
      throw new LxSyncError('EXPORT_FAILED', `the export file cannot be read: ${(error as Error).message}`);
    }
    await flush(true);
    this.progress.stop();
    await rm(file, { force: true });
    return { exportTimestamp: exportTimestamp!, rows: items };
  }

  /** The file, whole and checked, or an error (a failed check forgets the export: the next run asks for another). */
  private async download(status: CompletedExport, file: string): Promise<void> {
    const partial = `${file}.part`;
    const sha256 = createHash('sha256');
    this.progress.start('download', status.sizeBytes);
    let bytes = 0;
    try {
      await pipeline(
        await this.api.download(status.exportUrl),
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            sha256.update(chunk);
            bytes += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(partial),
      );
    } catch (error) {
      await rm(partial, { force: true });
      if (error instanceof LxSyncError) throw error;
      throw new LxSyncError(
        'EXPORT_FAILED',
        `the export download broke off after ${bytes} bytes (${(error as Error).message}); run the command again`,
      );
    }
    this.progress.update(bytes);
    this.progress.stop();
    if (sha256.digest('hex') !== status.sha256 || (await stat(partial)).size !== status.sizeBytes) {
      await rm(partial, { force: true });
      await this.store.transaction((transaction) => transaction.deleteState(LOADING.exportId));
      throw new LxSyncError(
        'EXPORT_FAILED',
        `the downloaded export ${status.requestId} does not match its sha256 or size; nothing was loaded from it: run the command again`,
      );
    }
    await rename(partial, file);
    await this.store.transaction((transaction) => transaction.setState(LOADING.downloaded, status.requestId));
  }

  /** The export being loaded if it is still downloadable and asked the same, else a new one; waited for. */
  private async completedExport(request: { modifiedSince?: string }): Promise<CompletedExport> {
    let requestId = await this.store.state(LOADING.exportId);
    const asked = (await this.store.state(LOADING.modifiedSince)) ?? '';
    if (requestId !== undefined && asked === (request.modifiedSince ?? '')) {
      const status = await this.api.exportStatus(requestId).catch(() => undefined);
      const usable =
        status?.status === 'PENDING' ||
        (status?.status === 'COMPLETED' && Date.parse(status.downloadExpiresAt) > Date.now() + 60_000);
      if (!usable) requestId = undefined;
    } else requestId = undefined;
    if (requestId === undefined) {
      requestId = await this.api.createExport({
        format: 'json',
        includeVersions: true,
        ...(request.modifiedSince === undefined ? {} : { modifiedSince: request.modifiedSince }),
      });
      await this.store.transaction(async (transaction) => {
        for (const key of Object.values(LOADING)) await transaction.deleteState(key);
        await transaction.setState(LOADING.exportId, requestId!);
        await transaction.setState(LOADING.modifiedSince, request.modifiedSince ?? '');
      });
    }
    this.progress.start(request.modifiedSince === undefined ? 'export' : `export since ${request.modifiedSince}`);
    for (;;) {
      const status = await this.api.exportStatus(requestId);
      if (status.status === 'COMPLETED') {
        this.progress.stop();
        return status;
      }
      if (status.status === 'FAILED') {
        await this.store.transaction((transaction) => transaction.deleteState(LOADING.exportId));
        throw new LxSyncError(
          'EXPORT_FAILED',
          `export ${requestId} failed: ${status.error.code} ${status.error.message}; run the command again`,
        );
      }
      this.progress.update(status.progress.written, status.progress.total);
      await sleep(POLL_MS);
    }
  }
}
