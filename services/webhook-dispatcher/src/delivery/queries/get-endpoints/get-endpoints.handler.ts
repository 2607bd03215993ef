import { Injectable } from '@nestjs/common';
import type { Endpoint } from '@lx/contracts';
import { ResourceNotFoundError } from '@lx/domain';
import { DeliveryRecordsRepository } from '../../infrastructure/delivery-records.repository';

/** The webhook endpoint of one client, or of every client (clientId absent), with its state: healthy, failing, disabled. */
@Injectable()
export class GetEndpointsHandler {
  constructor(private readonly records: DeliveryRecordsRepository) {}

  async execute(request: { clientId: string }): Promise<Endpoint>;
  async execute(request: { clientId?: undefined }): Promise<{ endpoints: Endpoint[] }>;
  async execute(request: { clientId?: string }): Promise<Endpoint | { endpoints: Endpoint[] }> {
    if (request.clientId === undefined) return { endpoints: await this.records.endpoints() };
    const endpoint = await this.records.endpoint(request.clientId);
    if (endpoint === undefined) throw new ResourceNotFoundError('endpoint', request.clientId);
    return endpoint;
  }
}
