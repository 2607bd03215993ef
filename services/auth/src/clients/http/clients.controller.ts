import { Body, Controller, Get, Header, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type ClientList,
  type ClientSecrets,
  type ClientView,
  PAGINATION,
  type RegisteredClient,
  registerClientRequestSchema,
  SCOPES,
  updateClientRequestSchema,
  validate,
} from '@lx/contracts';
import { ValidationFailedError } from '@lx/domain';
import { RequireScope, UuidParamPipe } from '@lx/platform';
import { DisableClientHandler } from '../commands/disable-client/disable-client.handler';
import { RegisterClientHandler } from '../commands/register-client/register-client.handler';
import { RotateClientSecretHandler } from '../commands/rotate-client-secret/rotate-client-secret.handler';
import { UpdateClientHandler } from '../commands/update-client/update-client.handler';
import { GetClientHandler } from '../queries/get-client/get-client.handler';
import { ListClientsHandler } from '../queries/list-clients/list-clients.handler';

function bodyOf<T>(schema: Parameters<typeof validate<T>>[0], body: unknown): T {
  const result = validate(schema, body ?? {});
  if (!result.ok) throw new ValidationFailedError(result.issues);
  return result.value;
}

function pageParameter(name: 'limit' | 'offset', raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  const max = name === 'limit' ? PAGINATION.maxLimit : Number.MAX_SAFE_INTEGER;
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    const rule = name === 'limit' ? `an integer from 1 to ${PAGINATION.maxLimit}` : 'an integer of 0 or more';
    throw new ValidationFailedError(
      [{ field: name, rule: 'range', message: `${name} must be ${rule}` }],
      name === 'limit' ? 'INVALID_LIMIT' : 'INVALID_OFFSET',
    );
  }
  return value;
}

/**
 * Client management for administrators (scope auth:admin). Secrets appear only in the replies that create them
 * (registration and rotation), which are never cached. The request id becomes the correlation id of the change's event.
 */
@Controller('admin/clients')
@RequireScope(SCOPES.authAdmin)
export class ClientsController {
  constructor(
    private readonly registerClient: RegisterClientHandler,
    private readonly updateClient: UpdateClientHandler,
    private readonly rotateSecret: RotateClientSecretHandler,
    private readonly disableClient: DisableClientHandler,
    private readonly getClient: GetClientHandler,
    private readonly listClients: ListClientsHandler,
  ) {}

  @Post()
  @HttpCode(201)
  @Header('cache-control', 'no-store')
  async register(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegisteredClient> {
    const registered = await this.registerClient.execute({
      ...bodyOf(registerClientRequestSchema, body),
      correlationId: request.id,
    });
    void reply.header('location', `/admin/clients/${registered.clientId}`);
    return registered;
  }

  @Get()
  list(@Query('limit') limit?: string, @Query('offset') offset?: string): Promise<ClientList> {
    return this.listClients.execute({
      limit: pageParameter('limit', limit, PAGINATION.defaultLimit, 1),
      offset: pageParameter('offset', offset, PAGINATION.defaultOffset, 0),
    });
  }

  @Get(':clientId')
  get(@Param('clientId', UuidParamPipe) clientId: string): Promise<ClientView> {
    return this.getClient.execute({ clientId: clientId });
  }

  @Patch(':clientId')
  update(
    @Param('clientId', UuidParamPipe) clientId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<ClientView> {
    return this.updateClient.execute({
      clientId: clientId,
      ...bodyOf(updateClientRequestSchema, body),
      correlationId: request.id,
    });
  }

  @Post(':clientId/rotate-secret')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  rotate(@Param('clientId', UuidParamPipe) clientId: string, @Req() request: FastifyRequest): Promise<ClientSecrets> {
    return this.rotateSecret.execute({ clientId: clientId, correlationId: request.id });
  }

  @Post(':clientId/disable')
  @HttpCode(200)
  disable(@Param('clientId', UuidParamPipe) clientId: string, @Req() request: FastifyRequest): Promise<ClientView> {
    return this.disableClient.execute({ clientId: clientId, correlationId: request.id });
  }
}
