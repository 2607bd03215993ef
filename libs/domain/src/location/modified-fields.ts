import type { Location, LocationModifiedFields } from '@lx/contracts';

type Json = Record<string, unknown>;

/** Fields a diff never compares: the id is permanent and the timestamps are the server's (updatedAt follows from a change). */
const UNCOMPARED: ReadonlySet<string> = new Set(['id', 'createdAt', 'updatedAt']);

/**
 * The OAF-100 `modifiedFields` of an update: a sparse copy of the Location's nesting with only the changed leaves and
 * their new values; a removed field is `null` (a removed object is one `null`, not one per leaf); arrays, such as
 * custom field values, are compared and copied whole. Nothing changed gives `{}` (see `hasChanges`).
 */
export function modifiedFields(before: Location, after: Location): LocationModifiedFields {
  return diff(withoutUncompared(before), withoutUncompared(after));
}

/** True when a `modifiedFields` result holds at least one change. */
export function hasChanges(changes: LocationModifiedFields): boolean {
  return Object.keys(changes).length > 0;
}

function withoutUncompared(location: Location): Json {
  return Object.fromEntries(Object.entries(location).filter(([key]) => !UNCOMPARED.has(key)));
}

function diff(before: Json, after: Json): Json {
  const changes: Json = {};
  for (const key of new Set([...Object.keys(after), ...Object.keys(before)])) {
    const [was, now] = [before[key], after[key]];
    if (now === undefined) {
      if (was !== undefined) changes[key] = null;
    } else if (isObject(now)) {
      const nested = diff(isObject(was) ? was : {}, now);
      if (Object.keys(nested).length > 0 || !isObject(was)) changes[key] = nested;
    } else if (!isEqual(was, now)) {
      changes[key] = Array.isArray(now) ? [...(now as unknown[])] : now;
    }
  }
  return changes;
}

function isEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => isEqual(item, b[index]));
  return a === b;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
