import {
  addressGroupInputSchema,
  type AddressGroup,
  isRecord,
  locationGroupInputSchema,
  type LocationGroup,
  validate,
  type ValidationIssue,
} from '@lx/contracts';
import { ConflictError, type DomainError, ResourceNotFoundError, ValidationFailedError } from '../errors/domain-error';
import { applyMergePatch } from '../merge-patch';
import { fail, type Result } from '../result';

/** Location groups (business groupings, type OTHER) and address groups (MDUs, type MDU_COMPLEX) follow the same rules. */
export type GroupKind = 'locationGroup' | 'addressGroup';

/** A group of either kind: id, name, type. */
export type Group = LocationGroup | AddressGroup;

/**
 * A group as far as its events tell: `undefined` before it was created; after a delete, its last state marked
 * deleted, so a later create under the same id continues the same stream.
 */
export type GroupState = { group: Group; deleted: boolean } | undefined;

const KINDS = {
  locationGroup: {
    schema: locationGroupInputSchema,
    created: 'LOCATION_GROUP_CREATED',
    updated: 'LOCATION_GROUP_UPDATED',
    deleted: 'LOCATION_GROUP_DELETED',
    noun: 'location group',
  },
  addressGroup: {
    schema: addressGroupInputSchema,
    created: 'ADDRESS_GROUP_CREATED',
    updated: 'ADDRESS_GROUP_UPDATED',
    deleted: 'ADDRESS_GROUP_DELETED',
    noun: 'address group',
  },
} as const;

type Kinds = typeof KINDS;
/** The event types of groups: `{LOCATION|ADDRESS}_GROUP_{CREATED|UPDATED|DELETED}`. */
export type GroupEventType = Kinds[GroupKind]['created' | 'updated' | 'deleted'];

/** What a group write records; `data` is the complete group (its last state for a delete). */
export interface GroupEvent {
  type: GroupEventType;
  data: Group;
}

interface GroupWrite {
  kind: GroupKind;
  /** The group's UUID; stored in lower case. */
  groupId: string;
}

/** POST: a new group under an id the server chose. */
export interface CreateGroup extends GroupWrite {
  type: 'CreateGroup';
  body: unknown;
}

/** PUT: create the group, or replace it; the same body twice changes nothing. A deleted group's id may be used again. */
export interface ReplaceGroup extends GroupWrite {
  type: 'ReplaceGroup';
  body: unknown;
}

/** PATCH: a JSON Merge Patch (RFC 7396) on an existing group. */
export interface PatchGroup extends GroupWrite {
  type: 'PatchGroup';
  patch: unknown;
}

/** DELETE: allowed only while no location references the group; the caller counts the references. */
export interface DeleteGroup extends GroupWrite {
  type: 'DeleteGroup';
  referencingLocations: number;
}

export type GroupCommand = CreateGroup | ReplaceGroup | PatchGroup | DeleteGroup;

/**
 * Decides what a group write records: nothing when it changes nothing. Rejections: ValidationFailedError,
 * ResourceNotFoundError (PATCH or DELETE of an unknown or deleted group), ConflictError (POST onto an id in use, or
 * DELETE while locations reference the group).
 */
export function decideGroup(command: GroupCommand, state: GroupState): Result<GroupEvent[], DomainError> {
  const kind = KINDS[command.kind];
  const groupId = command.groupId.toLowerCase();
  const current = state?.deleted === false ? state.group : undefined;
  switch (command.type) {
    case 'CreateGroup':
      if (current !== undefined) return fail(new ConflictError(`${kind.noun} ${groupId} already exists`));
      return write(command.kind, groupId, undefined, bodyOf(command.body, undefined));
    case 'ReplaceGroup':
      return write(command.kind, groupId, current, bodyOf(command.body, groupId));
    case 'PatchGroup': {
      if (current === undefined) return fail(new ResourceNotFoundError(command.kind, groupId));
      if (!isRecord(command.patch)) {
        return fail(
          new ValidationFailedError([{ field: '', rule: 'type', message: 'a merge patch must be a JSON object' }]),
        );
      }
      const patch = bodyOf(command.patch, groupId);
      if (!patch.ok) return patch;
      const { id: _id, ...fields } = current;
      return write(command.kind, groupId, current, { ok: true, value: applyMergePatch(fields, patch.value) });
    }
    case 'DeleteGroup':
      if (current === undefined) return fail(new ResourceNotFoundError(command.kind, groupId));
      if (command.referencingLocations > 0) {
        return fail(
          new ConflictError(
            `${kind.noun} ${groupId} is referenced by ${command.referencingLocations} location(s) and cannot be deleted`,
            { resourceType: command.kind, resourceId: groupId, referencingLocations: command.referencingLocations },
          ),
        );
      }
      return { ok: true, value: [{ type: kind.deleted, data: current }] };
  }
}

/** Applies one recorded fact. */
export function evolveGroup(_state: GroupState, event: GroupEvent): GroupState {
  return { group: event.data, deleted: event.type.endsWith('_DELETED') };
}

function write(
  kindName: GroupKind,
  groupId: string,
  current: Group | undefined,
  body: Result<unknown, ValidationFailedError>,
): Result<GroupEvent[], DomainError> {
  if (!body.ok) return body;
  const kind = KINDS[kindName];
  const validated = validate<{ name: string; type: string }>(kind.schema, body.value);
  if (!validated.ok) return fail(new ValidationFailedError(validated.issues));
  const group = { id: groupId, ...validated.value } as Group;
  if (current === undefined) return { ok: true, value: [{ type: kind.created, data: group }] };
  if (current.name === group.name && current.type === group.type) return { ok: true, value: [] };
  return { ok: true, value: [{ type: kind.updated, data: group }] };
}

function bodyOf(body: unknown, groupId: string | undefined): Result<unknown, ValidationFailedError> {
  if (!isRecord(body) || body['id'] === undefined) return { ok: true, value: body };
  const id = body['id'];
  const issue: ValidationIssue | undefined =
    groupId === undefined
      ? { field: 'id', rule: 'notAllowed', message: 'id is not allowed: the server assigns it' }
      : typeof id !== 'string' || id.toLowerCase() !== groupId
        ? { field: 'id', rule: 'matchesTarget', message: `id must be ${groupId}, the group written` }
        : undefined;
  if (issue !== undefined) return fail(new ValidationFailedError([issue]));
  const { id: _id, ...rest } = body;
  return { ok: true, value: rest };
}
