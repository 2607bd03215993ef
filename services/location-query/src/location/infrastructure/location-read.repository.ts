import { Injectable } from '@nestjs/common';
import type { Listed, Page } from '@lx/domain';
import { ReadPool } from '@lx/platform';

/** A stored location: its JSON text exactly as served, and its aggregate version (the ETag). */
export interface StoredLocation {
  version: number;
  body: string;
}

/** A page: the JSON texts of the locations, ordered by id; the total (see ReadPool.page) and the next `after`. */
export interface LocationPage extends Listed {
  /** The locations' JSON texts joined by commas. */
  bodies: string;
}

export interface LocationListFilter {
  locationGroupId?: string;
  addressGroupId?: string;
}

/**
 * Reads of the location read model through node-postgres directly: GET /locations/{id} is the hottest path of the
 * service, and one round trip with the stored text (no entity mapping, no JSON parse and re-serialisation) is what
 * keeps it close to a bare primary-key lookup. Every read is on the RSP-facing ReadPool (statement timeout); a list
 * holds one of its scan slots.
 */
@Injectable()
export class LocationReadRepository {
  constructor(private readonly pool: ReadPool) {}

  async find(id: string): Promise<StoredLocation | undefined> {
    // A named statement: each connection parses and plans it once, then only binds the id (Postgres re-plans it by
    // itself if the table is replaced, as by a replay).
    const { rows } = await this.pool.query<StoredLocation>({
      name: 'location-by-id',
      text: 'SELECT version, body::text AS body FROM locations WHERE id = $1',
      values: [id],
    });
    return rows[0];
  }

  /** One page ordered by id (after `page.after` when given), how many match in total, and the next `after`. */
  async list(filter: LocationListFilter, page: Page): Promise<LocationPage> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    if (filter.locationGroupId !== undefined) {
      values.push(filter.locationGroupId);
      conditions.push(`location_group_id = $${values.length}`);
    }
    if (filter.addressGroupId !== undefined) {
      values.push(filter.addressGroupId);
      conditions.push(`address_group_id = $${values.length}`);
    }
    const { joined, ...listed } = await this.pool.joinedPage({
      columns: 'body::text',
      table: 'locations',
      conditions,
      values,
      page,
    });
    return { bodies: joined, ...listed };
  }
}
