import { Injectable } from '@nestjs/common';
import type { ExportListReply } from '@lx/contracts';
import { type ExportListQuery, exportStatusReplyOf, paginationOf } from '@lx/domain';
import { ExportRequestRepository } from '../../infrastructure/export-request.repository';

export interface ListExports {
  clientId: string;
  query: ExportListQuery;
}

/** GET /locations/exports: the caller's exports, newest first, optionally of one status. */
@Injectable()
export class ListExportsHandler {
  constructor(private readonly requests: ExportRequestRepository) {}

  async execute({ clientId, query }: ListExports): Promise<ExportListReply> {
    const { items, ...listed } = await this.requests.list(clientId, query.page, query.status);
    return { exports: items.map(exportStatusReplyOf), pagination: paginationOf(query.page, listed) };
  }
}
