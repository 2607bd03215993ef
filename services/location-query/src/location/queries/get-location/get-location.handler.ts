import { Injectable } from '@nestjs/common';
import { ResourceNotFoundError } from '@lx/domain';
import { LocationReadRepository, type StoredLocation } from '../../infrastructure/location-read.repository';

export interface GetLocation {
  /** Canonical lower-case UUID. */
  locationId: string;
}

/** One location as the read model holds it; RESOURCE_NOT_FOUND when the read model has never seen it. */
@Injectable()
export class GetLocationHandler {
  constructor(private readonly locations: LocationReadRepository) {}

  async execute(query: GetLocation): Promise<StoredLocation> {
    const found = await this.locations.find(query.locationId);
    if (found === undefined) throw new ResourceNotFoundError('location', query.locationId);
    return found;
  }
}
