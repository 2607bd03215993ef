import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type ExportAccepted,
  type ExportListReply,
  type ExportStatusReply,
  IDEMPOTENCY_KEY_HEADER,
  SCOPES,
} from '@lx/contracts';
import { parseExportListQuery, type QueryParameters } from '@lx/domain';
import { principalClientId, RequireScope, UuidParamPipe } from '@lx/platform';
import { RenewExportLinkHandler } from '../commands/renew-export-link/renew-export-link.handler';
import { RequestExportHandler } from '../commands/request-export/request-export.handler';
import { GetExportHandler } from '../queries/get-export/get-export.handler';
import { ListExportsHandler } from '../queries/list-exports/list-exports.handler';

const PATH = 'locations/exports';

/** The RSP export API; only translates HTTP to use cases and results to replies. */
@Controller(PATH)
@RequireScope(SCOPES.locationsRead)
export class ExportsController {
  constructor(
    private readonly requestExport: RequestExportHandler,
    private readonly getExport: GetExportHandler,
    private readonly listExports: ListExportsHandler,
    private readonly renewLink: RenewExportLinkHandler,
  ) {}

  @Post()
  @HttpCode(202)
  async create(
    @Body() body: unknown,
    @Headers(IDEMPOTENCY_KEY_HEADER) idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExportAccepted> {
    const outcome = await this.requestExport.execute({ clientId: principalClientId(request), body, idempotencyKey });
    void reply.header('location', `/${PATH}/${outcome.reply.requestId}`);
    if (outcome.replayed) void reply.header('idempotent-replayed', 'true');
    return outcome.reply;
  }

  @Get()
  list(@Query() query: QueryParameters, @Req() request: FastifyRequest): Promise<ExportListReply> {
    const parsed = parseExportListQuery(query);
    if (!parsed.ok) throw parsed.error;
    return this.listExports.execute({ clientId: principalClientId(request), query: parsed.value });
  }

  @Get(':id')
  async get(
    @Param('id', UuidParamPipe) requestId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExportStatusReply> {
    void reply.header('cache-control', 'no-store');
    return this.getExport.execute({ clientId: principalClientId(request), requestId });
  }

  @Post(':id/link')
  @HttpCode(200)
  renew(@Param('id', UuidParamPipe) requestId: string, @Req() request: FastifyRequest): Promise<ExportStatusReply> {
    return this.renewLink.execute({ clientId: principalClientId(request), requestId });
  }
}
