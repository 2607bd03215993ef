import { WakeUp } from '@lx/platform';
import { Injectable, Logger } from '@nestjs/common';
import { type RedriveReply, redriveRequestSchema, validate } from '@lx/contracts';
import { ResourceNotFoundError, ValidationFailedError } from '@lx/domain';
import { DeliveryRecordsRepository } from '../../infrastructure/delivery-records.repository';

/** Redrives every DEAD delivery of a client created at or after `since` (after an RSP outage). */
@Injectable()
export class RedriveDeadDeliveriesHandler {
  private readonly logger = new Logger('WebhookRedrive');

  constructor(
    private readonly records: DeliveryRecordsRepository,
    private readonly wakeUp: WakeUp,
  ) {}

  async execute(request: { clientId: string; body: unknown }): Promise<RedriveReply> {
    const body = validate(redriveRequestSchema, request.body);
    if (!body.ok) throw new ValidationFailedError(body.issues);
    if ((await this.records.endpoint(request.clientId)) === undefined) {
      throw new ResourceNotFoundError('endpoint', request.clientId);
    }
    const redriven = await this.records.redriveDead(request.clientId, body.value.since);
    this.logger.log({ msg: 'DEAD webhook deliveries redriven', clientId: request.clientId, redriven });
    if (redriven > 0) this.wakeUp.notify();
    return { redriven };
  }
}
