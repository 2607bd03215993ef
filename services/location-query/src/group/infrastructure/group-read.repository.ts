import { Injectable } from '@nestjs/common';
import type { AddressGroup, AddressGroupListItem, LocationGroup, LocationGroupListItem } from '@lx/contracts';
import type { GroupListQuery, Listed, Page } from '@lx/domain';
import { ReadPool } from '@lx/platform';
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

/** Reads of groups (on the RSP-facing ReadPool): live ones, and with modifiedSince the tombstones of deleted ones too. */
@Injectable()
export class GroupReadRepository {
  constructor(private readonly pool: ReadPool) {}

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
   * A page and the total; name matches any case. Without modifiedSince or `after`: the live groups, ordered by name
   * (byte order, so the same everywhere) then id. With modifiedSince: the groups changed after it, tombstones
   * included. With modifiedSince or `after`, ordered by id (after `after`), and `next` names the next page's `after`.
   * A set selected by modifiedSince only grows while an RSP pages through it (a change moves no group out of it, a
   * deletion leaves a tombstone), so in id order, paging repeats at worst a group that changed meanwhile and never
   * skips one (unless a `name` filter is given too: a rename can move a group out of that).
   */
  async list(
    kind: GroupKind,
    query: Omit<GroupListQuery, 'page'>,
    page: Page,
  ): Promise<{ groups: (LocationGroupListItem | AddressGroupListItem)[] } & Listed> {
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
    // In id order with modifiedSince (see above) or after; else by name.
    const byName = query.modifiedSince === undefined && page.after === undefined;
    const { rows, ...listed } = await this.pool.page<GroupRow>({
      columns: GROUP_ROW_COLUMNS,
      table: TABLES[kind],
      conditions,
      values,
      page,
      ...(byName && { order: 'name COLLATE "C", id' }),
    });
    return { groups: rows.map(groupListItem), ...listed };
  }
}
