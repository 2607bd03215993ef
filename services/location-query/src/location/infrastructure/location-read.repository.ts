import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { Page } from '@lx/domain';
import { PG_POOL } from '@lx/platform';

/** A stored location: its JSON text exactly as served, and its aggregate version (the ETag). */
export interface StoredLocation {
  version: number;
  body: string;
}

export interface LocationPage {
  /** JSON texts of the locations, ordered by id. */
  bodies: string[];
  total: number;
}

export interface LocationListFilter {
  locationGroupId?: string;
  addressGroupId?: string;
}

/**
 * Reads of the location read model through node-postgres directly: GET /locations/{id} is the hottest path of the
 * service, and one round trip with the stored text (no entity mapping, no JSON parse and re-serialisation) is what
 * keeps it close to a bare primary-key lookup.
 */
@Injectable()
export class LocationReadRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

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

  /** One page ordered by id, and how many match in total. */
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
    const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
    const [items, count] = await Promise.all([
      this.pool.query<{ body: string }>(
        `SELECT body::text AS body FROM locations ${where} ORDER BY id LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, page.limit, page.offset],
      ),
      this.pool.query<{ total: string }>(`SELECT count(*) AS total FROM locations ${where}`, values),
    ]);
    return { bodies: items.rows.map((row) => row.body), total: Number(count.rows[0]?.total ?? 0) };
  }
}
