import { Injectable, Logger } from '@nestjs/common';
import type { Endpoint } from '@lx/contracts';
import { ResourceNotFoundError } from '@lx/domain';
import { DeliveryRecordsRepository } from '../../infrastructure/delivery-records.repository';

/** Clears an endpoint's DISABLED state (after a 410, once the RSP has fixed it) and its run of failures. */
@Injectable()
export class EnableEndpointHandler {
  private readonly logger = new Logger('WebhookEndpoints');

  constructor(private readonly records: DeliveryRecordsRepository) {}

  async execute(request: { clientId: string }): Promise<Endpoint> {
    if (!(await this.records.enableEndpoint(request.clientId))) {
      throw new ResourceNotFoundError('endpoint', request.clientId);
    }
    this.logger.log({ msg: 'Webhook endpoint enabled', clientId: request.clientId });
    return (await this.records.endpoint(request.clientId))!;
  }
}
