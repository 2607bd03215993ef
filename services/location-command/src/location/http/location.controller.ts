import { Body, Controller, Get, Headers, HttpCode, Param, Patch, Post, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_HEADER, type Location, SCOPES } from '@lx/contracts';
import { etagOf, principalClientId, RequireScope, UuidParamPipe } from '@lx/platform';
import { CreateLocationHandler } from '../commands/create-location/create-location.handler';
import type { LocationWriteResult } from '../domain/location.decider';
import { ReplaceLocationHandler } from '../commands/replace-location/replace-location.handler';
import { UpdateLocationHandler } from '../commands/update-location/update-location.handler';
import { GetLocationHandler } from '../queries/get-location/get-location.handler';

/** The operator's location write API; only translates HTTP to commands and results to replies. */
@Controller('operator/locations')
@RequireScope(SCOPES.locationsWrite)
export class LocationController {
  constructor(
    private readonly createLocation: CreateLocationHandler,
    private readonly replaceLocation: ReplaceLocationHandler,
    private readonly updateLocation: UpdateLocationHandler,
    private readonly getLocation: GetLocationHandler,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @Body() body: unknown,
    @Headers(IDEMPOTENCY_KEY_HEADER) idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Location> {
    const result = await this.createLocation.execute({
      body,
      clientId: principalClientId(request),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      correlationId: request.id,
    });
    void reply.header('location', `/operator/locations/${result.location.id}`);
    if (result.replayed) void reply.header('idempotent-replayed', 'true');
    return respond(reply, result);
  }

  /** 201 when the id was new, 200 when it replaced (or, replayed, left unchanged) the location. */
  @Put(':id')
  async replace(
    @Param('id', UuidParamPipe) locationId: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Location> {
    const result = await this.replaceLocation.execute({ locationId, body, ifMatch, correlationId: request.id });
    void reply.status(result.created ? 201 : 200);
    return respond(reply, result);
  }

  /** JSON Merge Patch (RFC 7396), as application/merge-patch+json or application/json. */
  @Patch(':id')
  async update(
    @Param('id', UuidParamPipe) locationId: string,
    @Body() patch: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Location> {
    return respond(reply, await this.updateLocation.execute({ locationId, patch, ifMatch, correlationId: request.id }));
  }

  @Get(':id')
  async get(
    @Param('id', UuidParamPipe) locationId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Location> {
    return respond(reply, await this.getLocation.execute({ locationId }));
  }
}

function respond(reply: FastifyReply, result: Pick<LocationWriteResult, 'location' | 'version'>): Location {
  void reply.header('etag', etagOf(result.version));
  return result.location;
}
