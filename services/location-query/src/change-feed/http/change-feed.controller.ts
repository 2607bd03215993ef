import { Controller, Get, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SCOPES } from '@lx/contracts';
import { parseChangeFeedQuery, type QueryParameters } from '@lx/domain';
import { RateLimited, RequireScope } from '@lx/platform';
import { JSON_CONTENT_TYPE } from '../../shared/http/json';
import { valueOrThrow } from '../../shared/http/query-result';
import { ReadChangesHandler } from '../queries/read-changes/read-changes.handler';

/**
 * The change feed, GET /locations/changes. A static route: Fastify matches it before the parametric
 * `/locations/:id` whatever the registration order, so `changes` is never taken for a location id. Each change is
 * stored as the exact text of its webhook body and sent as it is.
 */
@Controller('locations')
@RequireScope(SCOPES.locationsRead)
@RateLimited()
export class ChangeFeedController {
  constructor(private readonly readChanges: ReadChangesHandler) {}

  @Get('changes')
  async changes(@Query() query: QueryParameters, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const page = await this.readChanges.execute(valueOrThrow(parseChangeFeedQuery(query)));
    void reply.type(JSON_CONTENT_TYPE);
    return `{"changes":[${page.bodies.join(',')}],"next":${JSON.stringify(page.next)},"hasMore":${page.hasMore}}`;
  }
}
