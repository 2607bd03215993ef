import type { ChangeEvent, MirrorResource } from '../api/lx-api.client';
import type { ExportedItem } from '../api/export-file.reader';
import { LxSyncError } from '../errors';
import type { MirrorRow } from '../store/mirror-store';

/** The resource each change event type concerns; any other type is not part of a mirror. */
const RESOURCE_OF_TYPE: Record<string, MirrorResource> = {
  LOCATION_CREATED: 'locations',
  LOCATION_UPDATED: 'locations',
  LOCATION_GROUP_CREATED: 'locationGroups',
  LOCATION_GROUP_UPDATED: 'locationGroups',
  LOCATION_GROUP_DELETED: 'locationGroups',
  ADDRESS_GROUP_CREATED: 'addressGroups',
  ADDRESS_GROUP_UPDATED: 'addressGroups',
  ADDRESS_GROUP_DELETED: 'addressGroups',
};

const RESOURCE_OF_ITEM: Record<'location' | 'locationGroup' | 'addressGroup', MirrorResource> = {
  location: 'locations',
  locationGroup: 'locationGroups',
  addressGroup: 'addressGroups',
};

/** What a change (a webhook's or the feed's `event`) writes: the resource after it, at its version. */
export function rowOfChange(event: ChangeEvent): { resource: MirrorResource; row: MirrorRow } | undefined {
  const resource = RESOURCE_OF_TYPE[event.type];
  if (resource === undefined) return undefined;
  if (!Number.isInteger(event.version) || event.version < 1 || typeof event.data?.id !== 'string') {
    throw new LxSyncError('API_ERROR', `a ${event.type} change without data.id or version (event ${event.id})`);
  }
  return {
    resource,
    row: {
      id: event.data.id,
      version: event.version,
      deleted: event.type.endsWith('_DELETED'),
      body: JSON.stringify(event.data),
    },
  };
}

/** What an element of an export made with `includeVersions` writes; a tombstone (`deletedAt`) marks its group deleted. */
export function rowOfExportItem(
  kind: 'location' | 'locationGroup' | 'addressGroup',
  item: ExportedItem,
): { resource: MirrorResource; row: MirrorRow } {
  const { version, deletedAt, ...body } = item;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new LxSyncError(
      'EXPORT_FAILED',
      `the export file holds a ${kind} without a version (${item.id}): the API does not support includeVersions`,
    );
  }
  return {
    resource: RESOURCE_OF_ITEM[kind],
    row: { id: item.id, version, deleted: deletedAt !== undefined, body: JSON.stringify(body) },
  };
}
