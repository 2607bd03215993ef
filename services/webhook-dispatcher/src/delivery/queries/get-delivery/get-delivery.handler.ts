import { Injectable } from '@nestjs/common';
import type { DeliveryDetail } from '@lx/contracts';
import { ResourceNotFoundError } from '@lx/domain';
import { DeliveryRecordsRepository } from '../../infrastructure/delivery-records.repository';

export interface GetDelivery {
  id: string;
  /** The RSP asking; another client's delivery is as unknown as a missing one. Absent for an SRE. */
  clientId?: string;
}

/** One delivery with every attempt (time, status, latency, the first KB of the reply, the error). */
@Injectable()
export class GetDeliveryHandler {
  constructor(private readonly records: DeliveryRecordsRepository) {}

  async execute(request: GetDelivery): Promise<DeliveryDetail> {
    const found = await this.records.find(request.id, request.clientId);
    if (found === undefined) throw new ResourceNotFoundError('delivery', request.id);
    return { ...found.delivery, attemptLog: found.attempts };
  }
}
