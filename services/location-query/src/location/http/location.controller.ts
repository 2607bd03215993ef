import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SCOPES } from '@lx/contracts';
import { parseLocationListQuery, type QueryParameters } from '@lx/domain';
import { etagOf, ifNoneMatchMatches, RateLimited, RequireScope, UuidParamPipe } from '@lx/platform';
import { JSON_CONTENT_TYPE } from '../../shared/http/json';
import { valueOrThrow } from '../../shared/http/query-result';
import { GetLocationHandler } from '../queries/get-location/get-location.handler';
import { ListLocationsHandler } from '../queries/list-locations/list-locations.handler';

/**
 * RSP reads of locations. The read model stores each Location as the JSON text it serves, so replies are assembled
 * from stored text and never parsed and re-serialised.
 */
@Controller('locations')
@RequireScope(SCOPES.locationsRead)
@RateLimited()
export class LocationController {
  constructor(
    private readonly getLocation: GetLocationHandler,
    private readonly listLocations: ListLocationsHandler,
  ) {}

  @Get()
  async list(@Query() query: QueryParameters, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const page = await this.listLocations.execute(valueOrThrow(parseLocationListQuery(query)));
    void reply.type(JSON_CONTENT_TYPE);
    return `{"locations":[${page.bodies}],"pagination":${JSON.stringify(page.pagination)}}`;
  }

  /** The Location with its version as ETag; 304 without a body when If-None-Match names that version. */
  @Get(':id')
  async get(
    @Param('id', UuidParamPipe) locationId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | undefined> {
    const location = await this.getLocation.execute({ locationId });
    const etag = etagOf(location.version);
    void reply.header('etag', etag);
    if (ifNoneMatchMatches(ifNoneMatch, etag)) {
      void reply.status(304);
      return undefined;
    }
    void reply.type(JSON_CONTENT_TYPE);
    return location.body;
  }
}
