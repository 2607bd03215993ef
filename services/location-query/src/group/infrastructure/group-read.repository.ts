import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { AddressGroup, LocationGroup } from '@lx/contracts';
import type { GroupListQuery, Page } from '@lx/domain';
import { PG_POOL } from '@lx/platform';
import { LIVE_TABLES } from '../../read-model/read-model-tables';

/** The two kinds of group the read model holds. */
export type GroupKind = 'locationGroup' | 'addressGroup';
type Group = LocationGroup | AddressGroup;

const TABLES: Record<GroupKind, string> = {
  locationGroup: LIVE_TABLES.locationGroups,
  addressGroup: LIVE_TABLES.addressGroups,
};

/** Escapes LIKE wildcards so a name filter is a plain substring. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** Reads of live (not deleted) groups. */
@Injectable()
export class GroupReadRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async find(kind: GroupKind, id: string): Promise<{ group: Group; version: number } | undefined> {
    const { rows } = await this.pool.query<Group & { version: number }>(
      `SELECT id, name, type, version FROM ${TABLES[kind]} WHERE id = $1 AND NOT deleted`,
      [id],
    );
    const row = rows[0];
    return row === undefined
      ? undefined
      : { group: { id: row.id, name: row.name, type: row.type }, version: row.version };
  }

  /** A page ordered by name (byte order, so the same everywhere) then id, and the total; name matches any case. */
  async list(
    kind: GroupKind,
    query: Omit<GroupListQuery, 'page'>,
    page: Page,
  ): Promise<{ groups: Group[]; total: number }> {
    const conditions = ['NOT deleted'];
    const values: unknown[] = [];
    if (query.type !== undefined) {
      values.push(query.type);
      conditions.push(`type = $${values.length}`);
    }
    if (query.name !== undefined) {
      values.push(likePattern(query.name));
      conditions.push(`name ILIKE $${values.length}`);
    }
    const where = `WHERE ${conditions.join(' AND ')}`;
    const [items, count] = await Promise.all([
      this.pool.query<Group>(
        `SELECT id, name, type FROM ${TABLES[kind]} ${where}
          ORDER BY name COLLATE "C", id LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, page.limit, page.offset],
      ),
      this.pool.query<{ total: string }>(`SELECT count(*) AS total FROM ${TABLES[kind]} ${where}`, values),
    ]);
    return { groups: items.rows, total: Number(count.rows[0]?.total ?? 0) };
  }
}
