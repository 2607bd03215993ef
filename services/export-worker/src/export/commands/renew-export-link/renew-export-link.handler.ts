import { Inject, Injectable } from '@nestjs/common';
import { EXPORT_CONTENT_TYPES, type ExportStatusReply } from '@lx/contracts';
import { ConflictError, exportFilename, exportStatusReplyOf, ResourceNotFoundError } from '@lx/domain';
import { Clock } from '@lx/platform';
import { ObjectStore } from '@lx/storage';
import { EXPORT_WORKER_CONFIG, type ExportWorkerConfig } from '../../../config/export-worker.config';
import { ExportRequestRepository } from '../../infrastructure/export-request.repository';

export interface RenewExportLink {
  clientId: string;
  requestId: string;
}

/** The file of this export was deleted after its retention; details say when. */
export class ExportFileExpiredError extends ResourceNotFoundError {
  constructor(requestId: string, expiredAt: string) {
    super('export', requestId);
    this.message = `the file of export ${requestId} expired at ${expiredAt} and was deleted; request a new export`;
  }
}

/**
 * POST /locations/exports/{id}/link: a fresh signed download link for a COMPLETED export whose file is still kept.
 * The link never outlives the file: its expiry is the configured lifetime or the end of retention, whichever is
 * first, and downloadExpiresAt is that real expiry.
 */
@Injectable()
export class RenewExportLinkHandler {
  constructor(
    private readonly requests: ExportRequestRepository,
    private readonly store: ObjectStore,
    private readonly clock: Clock,
    @Inject(EXPORT_WORKER_CONFIG) private readonly config: ExportWorkerConfig,
  ) {}

  async execute(command: RenewExportLink): Promise<ExportStatusReply> {
    const request = await this.requests.find(command.clientId, command.requestId);
    if (request === undefined) throw new ResourceNotFoundError('export', command.requestId);
    if (request.status !== 'COMPLETED' || request.file === undefined) {
      throw new ConflictError(`export ${request.id} is ${request.status}; only a COMPLETED export has a file`, {
        status: request.status,
      });
    }
    const now = this.clock.now();
    const fileLeftMs = Date.parse(request.file.fileExpiresAt) - now.getTime();
    if (request.file.fileDeletedAt !== undefined || fileLeftMs <= 1000) {
      throw new ExportFileExpiredError(request.id, request.file.fileExpiresAt);
    }
    const link = await this.store.presignGet(request.file.objectKey, {
      expiresInSeconds: Math.min(this.config.files.linkTtlSeconds, Math.floor(fileLeftMs / 1000)),
      filename: exportFilename(request),
      contentType: EXPORT_CONTENT_TYPES[request.format],
      now,
    });
    await this.requests.updateLink(request.id, link.url, link.expiresAt);
    return exportStatusReplyOf({
      ...request,
      file: { ...request.file, exportUrl: link.url, downloadExpiresAt: link.expiresAt.toISOString() },
    });
  }
}
