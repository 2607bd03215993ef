import { Injectable } from '@nestjs/common';
import type { Pagination } from '@lx/contracts';
import { type LocationListQuery, paginationOf } from '@lx/domain';
import { LocationReadRepository } from '../../infrastructure/location-read.repository';

/** A page of locations as JSON texts with the pagination object of the group lists. */
export interface LocationListPage {
  bodies: string;
  pagination: Pagination;
}

/** GET /locations: locations of a location group and/or address group (or all), ordered by id. */
@Injectable()
export class ListLocationsHandler {
  constructor(private readonly locations: LocationReadRepository) {}

  async execute(query: LocationListQuery): Promise<LocationListPage> {
    const { bodies, ...listed } = await this.locations.list(query, query.page);
    return { bodies, pagination: paginationOf(query.page, listed) };
  }
}
