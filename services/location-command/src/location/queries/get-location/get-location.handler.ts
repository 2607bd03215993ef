import { Injectable } from '@nestjs/common';
import type { Location } from '@lx/contracts';
import { ResourceNotFoundError } from '@lx/domain';
import { EventStore } from '../../../event-store/event-store';

export interface GetLocationQuery {
  locationId: string;
}

/**
 * GET /operator/locations/{id}: the operator's current view with its version, so an operator tool can send If-Match.
 * RSPs read locations from location-query instead.
 */
@Injectable()
export class GetLocationHandler {
  constructor(private readonly store: EventStore) {}

  async execute(query: GetLocationQuery): Promise<{ location: Location; version: number }> {
    const stream = await this.store.find(query.locationId);
    if (stream?.streamType !== 'location') throw new ResourceNotFoundError('location', query.locationId);
    return { location: stream.data as Location, version: stream.version };
  }
}
