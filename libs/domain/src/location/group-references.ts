import { isRecord, isUuid, type LocationInput, type ValidationIssue } from '@lx/contracts';

/** The groups that exist among those a write references, by lower-case id; a write loads them before deciding. */
export interface ExistingGroups {
  readonly locationGroups: ReadonlySet<string>;
  readonly addressGroups: ReadonlySet<string>;
}

/** No group exists: for writes that reference none, and for tests. */
export const NO_GROUPS: ExistingGroups = { locationGroups: new Set(), addressGroups: new Set() };

/** Group ids a write may reference, lower-case and without repeats. */
export interface GroupIds {
  locationGroupIds: string[];
  addressGroupIds: string[];
}

/**
 * The group ids that unvalidated bodies, merge patches or current states mention (`locationGroupId` and
 * `address.addressGroupId`), so a write can load exactly those groups before it decides. Values that are not UUIDs are
 * skipped: validation rejects them anyway, and they could not name a group.
 */
export function referencedGroupIds(...values: unknown[]): GroupIds {
  const locationGroupIds = new Set<string>();
  const addressGroupIds = new Set<string>();
  for (const value of values) {
    if (!isRecord(value)) continue;
    addIfUuid(locationGroupIds, value['locationGroupId']);
    const address = value['address'];
    if (isRecord(address)) addIfUuid(addressGroupIds, address['addressGroupId']);
  }
  return { locationGroupIds: [...locationGroupIds], addressGroupIds: [...addressGroupIds] };
}

/** One issue per reference in `input` that names no existing group of its kind. */
export function groupReferenceIssues(input: LocationInput, existing: ExistingGroups): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { locationGroupId } = input;
  if (locationGroupId !== undefined && !existing.locationGroups.has(locationGroupId.toLowerCase())) {
    issues.push({
      field: 'locationGroupId',
      rule: 'groupExists',
      message: `locationGroupId ${locationGroupId} names no location group`,
    });
  }
  const addressGroupId = input.address?.addressGroupId;
  if (addressGroupId !== undefined && !existing.addressGroups.has(addressGroupId.toLowerCase())) {
    issues.push({
      field: 'address.addressGroupId',
      rule: 'groupExists',
      message: `address.addressGroupId ${addressGroupId} names no address group`,
    });
  }
  return issues;
}

function addIfUuid(ids: Set<string>, value: unknown): void {
  if (isUuid(value)) ids.add(value.toLowerCase());
}
