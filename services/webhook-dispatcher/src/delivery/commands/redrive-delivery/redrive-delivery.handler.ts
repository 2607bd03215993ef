import { WakeUp } from '@lx/platform';
import { Injectable, Logger } from '@nestjs/common';
import type { DeliveryDetail } from '@lx/contracts';
import { ConflictError, ResourceNotFoundError } from '@lx/domain';
import { DeliveryRecordsRepository } from '../../infrastructure/delivery-records.repository';

export interface RedriveDelivery {
  id: string;
  /** The RSP asking to receive its delivery again; absent for an SRE. */
  clientId?: string;
}

/**
 * Sends an ended delivery (DELIVERED, FAILED, DEAD) again: PENDING, due now, a fresh run of the retry schedule, the
 * same webhook-id (it is the same message). A PENDING delivery is already on its way: 409 CONFLICT.
 */
@Injectable()
export class RedriveDeliveryHandler {
  private readonly logger = new Logger('WebhookRedrive');

  constructor(
    private readonly records: DeliveryRecordsRepository,
    private readonly wakeUp: WakeUp,
  ) {}

  async execute(request: RedriveDelivery): Promise<DeliveryDetail> {
    const before = await this.records.redrive(request.id, request.clientId);
    if (before === undefined) throw new ResourceNotFoundError('delivery', request.id);
    if (before === 'PENDING') {
      throw new ConflictError(`delivery ${request.id} is PENDING: it is attempted on its schedule`, {
        resourceType: 'delivery',
        resourceId: request.id,
      });
    }
    this.logger.log({ msg: 'Webhook delivery redriven', deliveryId: request.id, previousStatus: before });
    this.wakeUp.notify();
    const found = await this.records.find(request.id);
    return { ...found!.delivery, attemptLog: found!.attempts };
  }
}
