import { Injectable } from '@nestjs/common';
import { type Endpoint, subscriptionUpdateSchema, validate } from '@lx/contracts';
import { ResourceNotFoundError, ValidationFailedError } from '@lx/domain';
import { DeliveryRecordsRepository } from '../../infrastructure/delivery-records.repository';

/**
 * PUT /webhooks/subscription: the event types an RSP receives from now on (null: all, the default). Deliveries
 * already created are not affected.
 */
@Injectable()
export class ChooseEventTypesHandler {
  constructor(private readonly records: DeliveryRecordsRepository) {}

  async execute(request: { clientId: string; body: unknown }): Promise<Endpoint> {
    const body = validate(subscriptionUpdateSchema, request.body);
    if (!body.ok) throw new ValidationFailedError(body.issues);
    const eventTypes = body.value.eventTypes === null ? null : [...new Set(body.value.eventTypes)];
    if (!(await this.records.chooseEventTypes(request.clientId, eventTypes))) {
      throw new ResourceNotFoundError('endpoint', request.clientId);
    }
    return (await this.records.endpoint(request.clientId))!;
  }
}
