import { Injectable } from '@nestjs/common';
import type { DeliveryList } from '@lx/contracts';
import { type DeliveryListQuery, paginationOf, parseDeliveryListQuery, type QueryParameters } from '@lx/domain';
import { DeliveryRecordsRepository } from '../../infrastructure/delivery-records.repository';

export interface ListDeliveries {
  parameters: QueryParameters;
  /** The RSP asking for its own deliveries; absent for an SRE, who may filter by clientId. */
  clientId?: string;
}

/** GET /webhooks/deliveries (own) and GET /admin/webhooks/deliveries (all): newest first, with pagination. */
@Injectable()
export class ListDeliveriesHandler {
  constructor(private readonly records: DeliveryRecordsRepository) {}

  async execute(request: ListDeliveries): Promise<DeliveryList> {
    const parsed = parseDeliveryListQuery(request.parameters, request.clientId === undefined ? 'admin' : 'client');
    if (!parsed.ok) throw parsed.error;
    const query: DeliveryListQuery =
      request.clientId === undefined ? parsed.value : { ...parsed.value, clientId: request.clientId };
    const { items, ...listed } = await this.records.list(query);
    return { deliveries: items, pagination: paginationOf(query.page, listed) };
  }
}
