import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type DeliveryDetail, type DeliveryList, type Endpoint, SCOPES } from '@lx/contracts';
import type { QueryParameters } from '@lx/domain';
import { principalClientId, RequireScope, UuidParamPipe } from '@lx/platform';
import { ChooseEventTypesHandler } from '../commands/choose-event-types/choose-event-types.handler';
import { RedriveDeliveryHandler } from '../commands/redrive-delivery/redrive-delivery.handler';
import { GetDeliveryHandler } from '../queries/get-delivery/get-delivery.handler';
import { GetEndpointsHandler } from '../queries/get-endpoints/get-endpoints.handler';
import { ListDeliveriesHandler } from '../queries/list-deliveries/list-deliveries.handler';

/**
 * The RSP's self-service (scope locations:read, its own deliveries only): recent deliveries, one with its attempts,
 * "send it again" (the spec's recovery after failed event processing), and the event types it receives.
 */
@Controller('webhooks')
@RequireScope(SCOPES.locationsRead)
export class WebhookDeliveriesController {
  constructor(
    private readonly listDeliveries: ListDeliveriesHandler,
    private readonly getDelivery: GetDeliveryHandler,
    private readonly redriveDelivery: RedriveDeliveryHandler,
    private readonly getEndpoints: GetEndpointsHandler,
    private readonly chooseEventTypes: ChooseEventTypesHandler,
  ) {}

  @Get('deliveries')
  list(@Query() parameters: QueryParameters, @Req() request: FastifyRequest): Promise<DeliveryList> {
    return this.listDeliveries.execute({ parameters, clientId: principalClientId(request) });
  }

  @Get('deliveries/:id')
  get(@Param('id', UuidParamPipe) id: string, @Req() request: FastifyRequest): Promise<DeliveryDetail> {
    return this.getDelivery.execute({ id, clientId: principalClientId(request) });
  }

  @Post('deliveries/:id/redeliver')
  @HttpCode(202)
  redeliver(@Param('id', UuidParamPipe) id: string, @Req() request: FastifyRequest): Promise<DeliveryDetail> {
    return this.redriveDelivery.execute({ id, clientId: principalClientId(request) });
  }

  @Get('subscription')
  subscription(@Req() request: FastifyRequest): Promise<Endpoint> {
    return this.getEndpoints.execute({ clientId: principalClientId(request) });
  }

  @Put('subscription')
  @HttpCode(200)
  choose(@Body() body: unknown, @Req() request: FastifyRequest): Promise<Endpoint> {
    return this.chooseEventTypes.execute({ clientId: principalClientId(request), body });
  }
}
