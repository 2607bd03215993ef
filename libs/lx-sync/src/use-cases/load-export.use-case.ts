import { createHash, type Hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExportStatus, LxApiClient } from '../api/lx-api.client';
import { readExportFile } from '../api/export-file.reader';
import { LxSyncError } from '../errors';
import type { MirrorStore } from '../store/mirror-store';
import { rowOfExportItem } from '../sync/mirror-rows';
import { type Progress, SILENT_PROGRESS } from '../sync/progress';
import { EXPORT_TIMESTAMP } from './catch-up-feed.use-case';

/** State keys of an export being loaded, so a load stopped half-way goes on where it stopped. */
const LOADING = { exportId: 'loading.exportId', modifiedSince: 'loading.modifiedSince', items: 'loading.items' };
/** Rows per transaction (with the count of items loaded, the resumption point). */
const BATCH = 2000;
const POLL_MS = 1000;

/**
 * Loads an export (full, or incremental with `modifiedSince`) made with `includeVersions` into the mirror: it asks for
 * one (or resumes the one being loaded), waits for it with its progress, streams the file (constant memory, checked
 * against the export's sha256) and applies each row only when newer than the mirror's. Then the mirror's export
 * time is the file's `exportTimestamp`: every change at or before it is in the mirror.
 */
export class LoadExport {
  constructor(
    private readonly api: LxApiClient,
    private readonly store: MirrorStore,
    private readonly progress: Progress = SILENT_PROGRESS,
  ) {}

  async execute(request: { modifiedSince?: string }): Promise<{ exportTimestamp: string; rows: number }> {
    const status = await this.completedExport(request);
    const skip = Number((await this.store.state(LOADING.items)) ?? '0');
    const sha256 = createHash('sha256');
    const file = hashed(await this.api.download(status.exportUrl!), sha256);
    this.progress.start(skip > 0 ? 'loading (resumed)' : 'loading', status.totalCount);
    let exportTimestamp: string | undefined;
    let items = 0;
    let batch: ReturnType<typeof rowOfExportItem>[] = [];
    const flush = async () => {
      const rows = batch;
      batch = [];
      await this.store.transaction(async (transaction) => {
        for (const { resource, row } of rows) await transaction.apply(resource, row);
        await transaction.setState(LOADING.items, String(items));
      });
      this.progress.update(Math.min(items, status.totalCount ?? items));
    };
    for await (const item of readExportFile(file)) {
      if (item.kind === 'header') {
        exportTimestamp = item.exportTimestamp;
        continue;
      }
      items++;
      if (items <= skip) continue;
      batch.push(rowOfExportItem(item.kind, item.value));
      if (batch.length >= BATCH) await flush();
    }
    if (status.sha256 !== undefined && sha256.digest('hex') !== status.sha256) {
      throw new LxSyncError('EXPORT_FAILED', `the downloaded export ${status.requestId} does not match its sha256`);
    }
    await this.store.transaction(async (transaction) => {
      for (const { resource, row } of batch) await transaction.apply(resource, row);
      await transaction.setState(EXPORT_TIMESTAMP, exportTimestamp!);
      for (const key of Object.values(LOADING)) await transaction.deleteState(key);
    });
    this.progress.update(status.totalCount ?? items);
    this.progress.stop();
    return { exportTimestamp: exportTimestamp!, rows: items };
  }

  /** The export being loaded if it is still downloadable and asked the same, else a new one; waited for. */
  private async completedExport(request: { modifiedSince?: string }): Promise<ExportStatus> {
    let requestId = await this.store.state(LOADING.exportId);
    const asked = (await this.store.state(LOADING.modifiedSince)) ?? '';
    if (requestId !== undefined && asked === (request.modifiedSince ?? '')) {
      const status = await this.api.exportStatus(requestId).catch(() => undefined);
      const usable =
        status?.status === 'PENDING' ||
        (status?.status === 'COMPLETED' && Date.parse(status.downloadExpiresAt!) > Date.now() + 60_000);
      if (!usable) requestId = undefined;
    } else requestId = undefined;
    if (requestId === undefined) {
      requestId = await this.api.createExport({
        format: 'json',
        includeVersions: true,
        ...(request.modifiedSince === undefined ? {} : { modifiedSince: request.modifiedSince }),
      });
      await this.store.transaction(async (transaction) => {
        await transaction.setState(LOADING.exportId, requestId!);
        await transaction.setState(LOADING.modifiedSince, request.modifiedSince ?? '');
        await transaction.setState(LOADING.items, '0');
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
          `export ${requestId} failed: ${status.error?.code ?? ''} ${status.error?.message ?? ''}; run the command again`,
        );
      }
      this.progress.update(status.progress?.written ?? 0, status.progress?.total);
      await sleep(POLL_MS);
    }
  }
}

/** The bytes as they come, each fed to the hash on its way. */
async function* hashed(bytes: AsyncIterable<Buffer>, hash: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of bytes) {
    hash.update(chunk);
    yield chunk;
  }
}
