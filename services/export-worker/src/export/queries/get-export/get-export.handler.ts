import { Injectable } from '@nestjs/common';
import type { ExportStatusReply } from '@lx/contracts';
import { exportStatusReplyOf, ResourceNotFoundError } from '@lx/domain';
import { ExportRequestRepository } from '../../infrastructure/export-request.repository';

export interface GetExport {
  clientId: string;
  requestId: string;
}

/** GET /locations/exports/{id}: the caller's export; another client's is as unknown as a missing one. */
@Injectable()
export class GetExportHandler {
  constructor(private readonly requests: ExportRequestRepository) {}

  async execute(query: GetExport): Promise<ExportStatusReply> {
    const request = await this.requests.find(query.clientId, query.requestId);
    if (request === undefined) throw new ResourceNotFoundError('export', query.requestId);
    return exportStatusReplyOf(request);
  }
}
