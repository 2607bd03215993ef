import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { type DeliveryDetail, type DeliveryList, type Endpoint, type RedriveReply, SCOPES } from '@lx/contracts';
import type { QueryParameters } from '@lx/domain';
import { RequireScope, UuidParamPipe } from '@lx/platform';
import { EnableEndpointHandler } from '../commands/enable-endpoint/enable-endpoint.handler';
import { RedriveDeadDeliveriesHandler } from '../commands/redrive-dead-deliveries/redrive-dead-deliveries.handler';
import { RedriveDeliveryHandler } from '../commands/redrive-delivery/redrive-delivery.handler';
import { GetDeliveryHandler } from '../queries/get-delivery/get-delivery.handler';
import { GetEndpointsHandler } from '../queries/get-endpoints/get-endpoints.handler';
import { ListDeliveriesHandler } from '../queries/list-deliveries/list-deliveries.handler';

/** The SRE's webhook operations (scope webhooks:admin): every client's deliveries, redrives, endpoint states. */
@Controller('admin/webhooks')
@RequireScope(SCOPES.webhooksAdmin)
export class WebhookAdminController {
  constructor(
    private readonly listDeliveries: ListDeliveriesHandler,
    private readonly getDelivery: GetDeliveryHandler,
    private readonly redriveDelivery: RedriveDeliveryHandler,
    private readonly redriveDead: RedriveDeadDeliveriesHandler,
    private readonly getEndpoints: GetEndpointsHandler,
    private readonly enableEndpoint: EnableEndpointHandler,
  ) {}

  @Get('deliveries')
  list(@Query() parameters: QueryParameters): Promise<DeliveryList> {
    return this.listDeliveries.execute({ parameters });
  }

  @Get('deliveries/:id')
  get(@Param('id', UuidParamPipe) id: string): Promise<DeliveryDetail> {
    return this.getDelivery.execute({ id });
  }

  @Post('deliveries/:id/redrive')
  @HttpCode(202)
  redrive(@Param('id', UuidParamPipe) id: string): Promise<DeliveryDetail> {
    return this.redriveDelivery.execute({ id });
  }

  @Get('endpoints')
  endpoints(): Promise<{ endpoints: Endpoint[] }> {
    return this.getEndpoints.execute({});
  }

  @Get('endpoints/:clientId')
  endpoint(@Param('clientId', UuidParamPipe) clientId: string): Promise<Endpoint> {
    return this.getEndpoints.execute({ clientId });
  }

  @Post('endpoints/:clientId/redrive')
  @HttpCode(202)
  redriveClient(@Param('clientId', UuidParamPipe) clientId: string, @Body() body: unknown): Promise<RedriveReply> {
    return this.redriveDead.execute({ clientId, body });
  }

  @Post('endpoints/:clientId/enable')
  @HttpCode(200)
  enable(@Param('clientId', UuidParamPipe) clientId: string): Promise<Endpoint> {
    return this.enableEndpoint.execute({ clientId });
  }
}
