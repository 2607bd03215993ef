import {
  isRecord,
  type Location,
  type LocationInput,
  type LocationModifiedFields,
  type ValidationIssue,
} from '@lx/contracts';
import {
  ConflictError,
  type DomainError,
  InvalidGroupReferenceError,
  InvalidStatusTransitionError,
  ResourceNotFoundError,
  ValidationFailedError,
} from '../errors/domain-error';
import { applyMergePatch } from '../merge-patch';
import { fail, ok, type Result } from '../result';
import { type ExistingGroups, groupReferenceIssues } from './group-references';
import { validateLocationInput } from './location-validity';
import { hasChanges, modifiedFields } from './modified-fields';
import { canTransition, isTerminalStatus, serviceabilityStatusOf } from './serviceability-lifecycle';

/** A location as far as its events tell: `undefined` until LOCATION_CREATED, then the current resource. */
export type LocationState = Location | undefined;

/** What every location write knows besides its body: the target, the time (from an injected clock), the groups. */
interface LocationWrite {
  /** The location's UUID; compared and stored in lower case. */
  locationId: string;
  /** ISO 8601 UTC date-time of the write; becomes createdAt and updatedAt where they move. */
  now: string;
  /** The groups that exist among those the body references (see `referencedGroupIds`). */
  existingGroups: ExistingGroups;
}

/** POST: a new location under an id the server chose; a body may not carry its own id. */
export interface CreateLocation extends LocationWrite {
  type: 'CreateLocation';
  body: unknown;
}

/** PUT and bulk import: create the location, or replace it whole; the same body twice changes nothing. */
export interface ReplaceLocation extends LocationWrite {
  type: 'ReplaceLocation';
  body: unknown;
}

/** PATCH: a JSON Merge Patch (RFC 7396) on an existing location. */
export interface PatchLocation extends LocationWrite {
  type: 'PatchLocation';
  patch: unknown;
}

/** Full-replace import: a location missing from the file leaves service as RETIRED (nothing happens if it already left). */
export interface RetireLocation {
  type: 'RetireLocation';
  locationId: string;
  now: string;
}

export type LocationCommand = CreateLocation | ReplaceLocation | PatchLocation | RetireLocation;

/** The facts a location write records; the service wraps them in the OAF-100 envelope (id, timestamp, source). */
export type LocationEvent =
  | { type: 'LOCATION_CREATED'; data: Location }
  | { type: 'LOCATION_UPDATED'; data: Location; modifiedFields: LocationModifiedFields };

/** The fields of a write body the server owns: an equal `id` and the timestamps are ignored, so a GET reply can be PUT back. */
const SERVER_FIELDS = ['id', 'createdAt', 'updatedAt'] as const;

/**
 * Decides what a location write records. No event when nothing really changed (a replayed PUT, an unchanged import
 * row, retiring a retired location), so updatedAt moves only on real changes. Rejections: ValidationFailedError (with
 * the OAF-100 code of the broken rule), InvalidGroupReferenceError, InvalidStatusTransitionError (nothing leaves
 * CANCELLED or RETIRED), ResourceNotFoundError (PATCH or retire of an unknown id), ConflictError (POST onto an id in use).
 */
export function decideLocation(command: LocationCommand, state: LocationState): Result<LocationEvent[], DomainError> {
  const locationId = command.locationId.toLowerCase();
  switch (command.type) {
    case 'CreateLocation':
      if (state !== undefined) return fail(new ConflictError(`location ${locationId} already exists`));
      return write(command, undefined, inputOf(command.body, undefined));
    case 'ReplaceLocation':
      return write(command, state, inputOf(command.body, locationId));
    case 'PatchLocation': {
      if (state === undefined) return fail(new ResourceNotFoundError('location', locationId));
      if (!isRecord(command.patch)) {
        return fail(
          new ValidationFailedError([{ field: '', rule: 'type', message: 'a merge patch must be a JSON object' }]),
        );
      }
      const patch = withoutServerFields(command.patch, locationId);
      if (!patch.ok) return patch;
      return write(command, state, inputOf(applyMergePatch(inputFieldsOf(state), patch.value), locationId));
    }
    case 'RetireLocation':
      return retire(locationId, command.now, state);
  }
}

/** Applies one recorded fact: every location event carries the complete resource after the change. */
export function evolveLocation(_state: LocationState, event: LocationEvent): LocationState {
  return event.data;
}

function write(
  command: LocationWrite,
  state: LocationState,
  body: Result<unknown, ValidationFailedError>,
): Result<LocationEvent[], DomainError> {
  if (!body.ok) return body;
  const validated = validateLocationInput(body.value);
  if (!validated.ok) return validated;
  const input = withCanonicalIds(validated.value);
  const groupIssues = groupReferenceIssues(input, command.existingGroups);
  if (groupIssues.length > 0) return fail(new InvalidGroupReferenceError(groupIssues));

  const locationId = command.locationId.toLowerCase();
  if (state === undefined) {
    return ok([
      { type: 'LOCATION_CREATED', data: { id: locationId, createdAt: command.now, updatedAt: command.now, ...input } },
    ]);
  }
  return update(state, { id: state.id, createdAt: state.createdAt, updatedAt: command.now, ...input });
}

function update(state: Location, next: Location): Result<LocationEvent[], DomainError> {
  const changes = modifiedFields(state, next);
  if (!hasChanges(changes)) return ok([]);
  const [from, to] = [serviceabilityStatusOf(state), serviceabilityStatusOf(next)];
  if (!canTransition(from, to)) return fail(new InvalidStatusTransitionError(from, to));
  return ok([{ type: 'LOCATION_UPDATED', data: next, modifiedFields: changes }]);
}

function retire(locationId: string, now: string, state: LocationState): Result<LocationEvent[], DomainError> {
  if (state === undefined) return fail(new ResourceNotFoundError('location', locationId));
  const status = serviceabilityStatusOf(state);
  if (status !== undefined && isTerminalStatus(status)) return ok([]);
  const fiberAccessDetails = state.fiberAccessDetails ?? {};
  return update(state, {
    ...state,
    updatedAt: now,
    fiberAccessDetails: {
      ...fiberAccessDetails,
      serviceability: { ...fiberAccessDetails.serviceability, status: 'RETIRED' },
    },
  });
}

/** The body without the server's fields; an `id` must name the target, and is refused where the server picks it. */
function inputOf(body: unknown, locationId: string | undefined): Result<unknown, ValidationFailedError> {
  return isRecord(body) ? withoutServerFields(body, locationId) : ok(body);
}

function withoutServerFields(
  body: Record<string, unknown>,
  locationId: string | undefined,
): Result<Record<string, unknown>, ValidationFailedError> {
  const id = body['id'];
  const issues: ValidationIssue[] = [];
  if (id !== undefined && locationId === undefined) {
    issues.push({ field: 'id', rule: 'notAllowed', message: 'id is not allowed: the server assigns it' });
  } else if (id !== undefined && (typeof id !== 'string' || id.toLowerCase() !== locationId)) {
    issues.push({ field: 'id', rule: 'matchesTarget', message: `id must be ${locationId}, the location written` });
  }
  if (issues.length > 0) return fail(new ValidationFailedError(issues));
  const rest = { ...body };
  for (const field of SERVER_FIELDS) delete rest[field];
  return ok(rest);
}

function inputFieldsOf(location: Location): LocationInput {
  const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, ...input } = location;
  return input;
}

/** UUIDs are case-insensitive on input (RFC 4122); group references are kept in lower case like every stored id. */
function withCanonicalIds(input: LocationInput): LocationInput {
  const canonical = { ...input };
  if (canonical.locationGroupId !== undefined) canonical.locationGroupId = canonical.locationGroupId.toLowerCase();
  if (canonical.address?.addressGroupId !== undefined) {
    canonical.address = { ...canonical.address, addressGroupId: canonical.address.addressGroupId.toLowerCase() };
  }
  return canonical;
}
