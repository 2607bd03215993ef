import type { ChangeEventType } from '@lx/contracts';
import type { MirrorResource } from '../api/lx-api.client';
import type { ExportedItem } from '../api/export-file.reader';
import { LxSyncError } from '../errors';
import type { MirrorRow } from '../store/mirror-store';

/** The resource each change event type concerns (every type of the contracts' CHANGE_EVENT_TYPES). */
const RESOURCE_OF_TYPE: Record<ChangeEventType, MirrorResource> = {
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

/**
 * What a change (a webhook's or the feed's `event`) writes: the resource after it, at its version; undefined for an
 * event type a mirror does not hold (a later release's, say). Only what a mirror needs is checked, so additive fields
 * do no harm: a type, a positive integer version, and data with an id; anything else is INVALID_PAYLOAD.
 */
export function rowOfChange(event: unknown): { resource: MirrorResource; row: MirrorRow } | undefined {
  const candidate = event as { id?: unknown; type?: unknown; version?: unknown; data?: { id?: unknown } } | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.type !== 'string') {
    throw new LxSyncError('INVALID_PAYLOAD', 'a change without an event type');
  }
  const resource = RESOURCE_OF_TYPE[candidate.type as ChangeEventType] as MirrorResource | undefined;
  if (resource === undefined) return undefined;
  const { version, data } = candidate;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || typeof data?.id !== 'string') {
    throw new LxSyncError(
      'INVALID_PAYLOAD',
      `a ${candidate.type} change without data.id or a version (event ${String(candidate.id)})`,
    );
  }
  return {
    resource,
    row: { id: data.id, version, deleted: candidate.type.endsWith('_DELETED'), body: JSON.stringify(data) },
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
