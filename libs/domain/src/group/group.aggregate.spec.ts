import { ValidationFailedError } from '../errors/domain-error';
import { decideGroup, evolveGroup, type GroupCommand, type GroupEvent, type GroupState } from './group.aggregate';

const groupId = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';
const phase1 = { id: groupId, name: 'Phase 1', type: 'OTHER' } as const;
const created: GroupEvent = { type: 'LOCATION_GROUP_CREATED', data: phase1 };
const deleted: GroupEvent = { type: 'LOCATION_GROUP_DELETED', data: phase1 };

/** Given these events happened, when the command is decided: the events it records, or its error. */
function given(...events: GroupEvent[]) {
  const state = events.reduce<GroupState>(evolveGroup, undefined);
  return {
    when(command: GroupCommand) {
      const result = decideGroup(command, state);
      return result.ok ? { events: result.value } : { error: result.error };
    },
  };
}

const replace = (body: unknown): GroupCommand => ({ type: 'ReplaceGroup', kind: 'locationGroup', groupId, body });
const patch = (body: unknown): GroupCommand => ({ type: 'PatchGroup', kind: 'locationGroup', groupId, patch: body });
const remove = (referencingLocations = 0): GroupCommand => ({
  type: 'DeleteGroup',
  kind: 'locationGroup',
  groupId,
  referencingLocations,
});

describe('group aggregate', () => {
  it('given nothing, when a location group is created, then LOCATION_GROUP_CREATED with the full group', () => {
    const command: GroupCommand = {
      type: 'CreateGroup',
      kind: 'locationGroup',
      groupId,
      body: { name: 'Phase 1', type: 'OTHER' },
    };
    expect(given().when(command)).toEqual({ events: [created] });
  });

  it('given nothing, when an address group is replaced, then ADDRESS_GROUP_CREATED', () => {
    const command: GroupCommand = {
      type: 'ReplaceGroup',
      kind: 'addressGroup',
      groupId: groupId.toUpperCase(),
      body: { name: 'Tower A', type: 'MDU_COMPLEX' },
    };
    expect(given().when(command)).toEqual({
      events: [{ type: 'ADDRESS_GROUP_CREATED', data: { id: groupId, name: 'Tower A', type: 'MDU_COMPLEX' } }],
    });
  });

  it('given the group, when the same body is replayed, then nothing is recorded', () => {
    expect(given(created).when(replace({ id: groupId, name: 'Phase 1', type: 'OTHER' }))).toEqual({ events: [] });
  });

  it('given the group, when renamed, then LOCATION_GROUP_UPDATED', () => {
    expect(given(created).when(patch({ name: 'Phase 2' }))).toEqual({
      events: [{ type: 'LOCATION_GROUP_UPDATED', data: { ...phase1, name: 'Phase 2' } }],
    });
  });

  it.each([
    ['a wrong type', { name: 'x', type: 'MDU_COMPLEX' }, 'type'],
    ['no name', { type: 'OTHER' }, 'name'],
    ['a blank name', { name: ' ', type: 'OTHER' }, 'name'],
    ['an unknown field', { name: 'x', type: 'OTHER', colour: 'red' }, 'colour'],
    ['another id', { id: '9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b', name: 'x', type: 'OTHER' }, 'id'],
  ])(
    'given nothing, when a location group with %s is written, then VALIDATION_ERROR names %s',
    (_case, body, field) => {
      expect(given().when(replace(body)).error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { issues: [expect.objectContaining({ field })] },
      });
    },
  );

  it('given the group, when a patch sets the name to null, then VALIDATION_ERROR: name is required', () => {
    expect(given(created).when(patch({ name: null })).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { issues: [{ field: 'name', rule: 'required' }] },
    });
  });

  it('given nothing, when patched, then RESOURCE_NOT_FOUND for the kind', () => {
    expect(given().when(patch({ name: 'x' })).error).toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
      details: { resourceType: 'locationGroup', resourceId: groupId },
    });
  });

  it('given an unreferenced group, when deleted, then LOCATION_GROUP_DELETED with its last state', () => {
    expect(given(created).when(remove())).toEqual({ events: [deleted] });
  });

  it('given a group referenced by 2 locations, when deleted, then CONFLICT', () => {
    expect(given(created).when(remove(2)).error).toMatchObject({
      code: 'CONFLICT',
      message: `location group ${groupId} is referenced by 2 location(s) and cannot be deleted`,
      details: { resourceType: 'locationGroup', resourceId: groupId, referencingLocations: 2 },
    });
  });

  it('given a deleted group, when deleted or patched again, then RESOURCE_NOT_FOUND', () => {
    expect(given(created, deleted).when(remove()).error).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    expect(given(created, deleted).when(patch({ name: 'x' })).error).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });

  it('given a deleted group, when its id is PUT again, then LOCATION_GROUP_CREATED', () => {
    expect(given(created, deleted).when(replace({ name: 'Phase 1', type: 'OTHER' }))).toEqual({ events: [created] });
  });

  it('given the group exists, when created by POST under its id, then CONFLICT', () => {
    const command: GroupCommand = {
      type: 'CreateGroup',
      kind: 'locationGroup',
      groupId,
      body: { name: 'x', type: 'OTHER' },
    };
    expect(given(created).when(command).error).toMatchObject({ code: 'CONFLICT' });
  });

  it('given created then deleted, when folded, then the state is the last group marked deleted', () => {
    expect([created, deleted].reduce<GroupState>(evolveGroup, undefined)).toEqual({ group: phase1, deleted: true });
  });
});

describe('group aggregate: rejections in detail', () => {
  const otherId = '9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b';
  const create = (body: unknown): GroupCommand => ({ type: 'CreateGroup', kind: 'addressGroup', groupId, body });
  const issuesOf = (outcome: { error?: unknown }) => {
    expect(outcome.error).toBeInstanceOf(ValidationFailedError);
    return (outcome.error as ValidationFailedError).details.issues;
  };

  it('given the group exists, when created by POST under its id, then the CONFLICT message names the kind and id', () => {
    const addressGroup: GroupEvent = {
      type: 'ADDRESS_GROUP_CREATED',
      data: { id: groupId, name: 'Tower A', type: 'MDU_COMPLEX' },
    };
    expect(given(addressGroup).when(create({ name: 'Tower B', type: 'MDU_COMPLEX' })).error).toMatchObject({
      code: 'CONFLICT',
      message: `address group ${groupId} already exists`,
    });
  });

  it('given nothing, when created by POST with an id in the body, then the id is not allowed', () => {
    expect(issuesOf(given().when(create({ id: groupId, name: 'Tower A', type: 'MDU_COMPLEX' })))).toStrictEqual([
      { field: 'id', rule: 'notAllowed', message: 'id is not allowed: the server assigns it' },
    ]);
  });

  it.each([otherId, 42, null])('given nothing, when a body carries id %j, then it must match the target', (id) => {
    expect(issuesOf(given().when(replace({ id, name: 'x', type: 'OTHER' })))).toStrictEqual([
      { field: 'id', rule: 'matchesTarget', message: `id must be ${groupId}, the group written` },
    ]);
  });

  it('given the group, when a patch carries another id, then it must match the target and nothing is merged', () => {
    expect(issuesOf(given(created).when(patch({ id: otherId, name: 'x' })))).toStrictEqual([
      { field: 'id', rule: 'matchesTarget', message: `id must be ${groupId}, the group written` },
    ]);
  });

  it('given the group, when a patch carries its own id in upper case, then the id is dropped and the rest applied', () => {
    expect(given(created).when(patch({ id: groupId.toUpperCase(), name: 'Phase 2' }))).toEqual({
      events: [{ type: 'LOCATION_GROUP_UPDATED', data: { ...phase1, name: 'Phase 2' } }],
    });
  });

  it.each([[['name']], ['Phase 2'], [null], [7]])(
    'given the group, when the patch is %j, then VALIDATION_ERROR: a merge patch must be a JSON object',
    (body) => {
      const outcome = given(created).when(patch(body));
      expect(issuesOf(outcome)).toStrictEqual([
        { field: '', rule: 'type', message: 'a merge patch must be a JSON object' },
      ]);
      expect(outcome.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'a merge patch must be a JSON object' });
    },
  );

  it.each([null, [{ name: 'x', type: 'OTHER' }], 'Phase 1'])(
    'given nothing, when the body is %j, then VALIDATION_ERROR on the body itself',
    (body) => {
      expect(issuesOf(given().when(replace(body)))).toStrictEqual([expect.objectContaining({ field: '' })]);
    },
  );

  it('given a stored group of another type, when the same name is PUT, then the type change is recorded', () => {
    // Writes can only set the kind's one type, so this guards the no-op check against recorded data of another type.
    const stored: GroupEvent = { type: 'LOCATION_GROUP_CREATED', data: { ...phase1, type: 'MDU_COMPLEX' } };
    expect(given(stored).when(replace({ name: 'Phase 1', type: 'OTHER' }))).toEqual({
      events: [{ type: 'LOCATION_GROUP_UPDATED', data: phase1 }],
    });
  });
});
