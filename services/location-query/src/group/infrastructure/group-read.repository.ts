import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { AddressGroup, AddressGroupListItem, LocationGroup, LocationGroupListItem } from '@lx/contracts';
import type { GroupListQuery, Page } from '@lx/domain';
import { PG_POOL } from '@lx/platform';
import { GROUP_ROW_COLUMNS, groupListItem, type GroupRow, groupSelection } from '../../read-model/group-rows';
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

/** Reads of groups: live ones, and with modifiedSince the tombstones of deleted ones too. */
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

  /**
   * A page and the total; name matches any case. Without modifiedSince: the live groups, ordered by name (byte order,
   * so the same everywhere) then id. With it: the groups changed after it, tombstones included, ordered by id. Such a
   * set only grows while an RSP pages through it (a change moves no group out of it, a deletion leaves a tombstone),
   * so with a fixed id order, offset paging repeats at worst a group that changed meanwhile and never skips one
   * (unless a `name` filter is given too: a rename can move a group out of that).
   */
  async list(
    kind: GroupKind,
    query: Omit<GroupListQuery, 'page'>,
    page: Page,
  ): Promise<{ groups: (LocationGroupListItem | AddressGroupListItem)[]; total: number }> {
    const values: unknown[] = [];
    const conditions = [groupSelection(query.modifiedSince, values)];
    if (query.type !== undefined) {
      values.push(query.type);
      conditions.push(`type = $${values.length}`);
    }
    if (query.name !== undefined) {
      values.push(likePattern(query.name));
      conditions.push(`name ILIKE $${values.length}`);
    }
    const where = `WHERE ${conditions.join(' AND ')}`;
    const order = query.modifiedSince === undefined ? 'name COLLATE "C", id' : 'id';
    const [items, count] = await Promise.all([
      this.pool.query<GroupRow>(
        `SELECT ${GROUP_ROW_COLUMNS} FROM ${TABLES[kind]} ${where}
          ORDER BY ${order} LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, page.limit, page.offset],
      ),
      this.pool.query<{ total: string }>(`SELECT count(*) AS total FROM ${TABLES[kind]} ${where}`, values),
    ]);
    return { groups: items.rows.map(groupListItem), total: Number(count.rows[0]?.total ?? 0) };
  }
}
