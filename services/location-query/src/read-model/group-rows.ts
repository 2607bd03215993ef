import type { AddressGroupListItem, LocationGroupListItem } from '@lx/contracts';

/** A group row as the lists and the snapshot read it (columns GROUP_ROW_COLUMNS). */
export interface GroupRow {
  id: string;
  name: string;
  type: string;
  deleted_at: Date | null;
}

/** The columns of a GroupRow. */
export const GROUP_ROW_COLUMNS = 'id, name, type, deleted_at';

/**
 * The condition that selects the groups a reader is given, its value appended to `values`. Without modifiedSince: the
 * live groups. With it: every group whose last change (its event's timestamp) is after modifiedSince, deleted ones
 * included as tombstones; "after" as for the locations of an export and the statistics' modifiedSince.
 */
export function groupSelection(modifiedSince: string | undefined, values: unknown[]): string {
  if (modifiedSince === undefined) return 'NOT deleted';
  values.push(modifiedSince);
  return `changed_at > $${values.length}`;
}

/** A group, or the tombstone of a deleted one: its last id, name and type, and deletedAt (UTC, milliseconds). */
export function groupListItem(row: GroupRow): LocationGroupListItem | AddressGroupListItem {
  const group = { id: row.id, name: row.name, type: row.type } as LocationGroupListItem | AddressGroupListItem;
  if (row.deleted_at !== null) group.deletedAt = row.deleted_at.toISOString();
  return group;
}
