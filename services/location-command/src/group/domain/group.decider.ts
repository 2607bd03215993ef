import {
  ConflictError,
  decideGroup,
  evolveGroup,
  type Group,
  type GroupCommand,
  type GroupEvent,
  type GroupKind,
  type GroupState,
} from '@lx/domain';
import { type Decider, NO_GROUPS_NAMED, type WriteOutcome } from '../../event-store/decider';
import type { StoredStream } from '../../event-store/event-store.types';

/** A group after a write, with its version (the ETag) and what the write did. */
export interface GroupWriteResult {
  group: Group;
  version: number;
  created: boolean;
  changed: boolean;
  deleted: boolean;
}

const DECIDERS = {
  locationGroup: deciderOf('locationGroup'),
  addressGroup: deciderOf('addressGroup'),
};

/** The group aggregate of one kind for DeciderCommandHandler: the rules of `@lx/domain` and the group's state row. */
export function groupDecider(kind: GroupKind): Decider<GroupState, GroupCommand, GroupEvent> {
  return DECIDERS[kind];
}

/** What a group write answers. */
export function groupWriteResultOf(outcome: WriteOutcome<GroupState>, kind: GroupKind, id: string): GroupWriteResult {
  if (outcome.state === undefined) throw new Error(`${kind} ${id} has no state after a successful write`);
  return {
    group: outcome.state.group,
    version: outcome.version,
    created: outcome.events.some((event) => event.type.endsWith('_CREATED')),
    changed: outcome.events.length > 0,
    deleted: outcome.state.deleted,
  };
}

/** The group state of a stored stream; an id of another kind of aggregate is a conflict. */
export function groupStateOf(stream: StoredStream | undefined, kind: GroupKind, id: string): GroupState {
  if (stream === undefined) return undefined;
  if (stream.streamType !== kind) {
    throw new ConflictError(`${id} is the id of a ${stream.streamType}, not of a ${kind}`, {
      resourceId: id,
      resourceType: stream.streamType,
    });
  }
  return { group: stream.data as Group, deleted: stream.deleted };
}

function deciderOf(kind: GroupKind): Decider<GroupState, GroupCommand, GroupEvent> {
  return {
    streamType: kind,
    stateOf: (stream, id) => groupStateOf(stream, kind, id),
    // A deleted group does not exist for If-Match (If-Match: * fails on it).
    currentVersion: (stream, state) => (state?.deleted === false ? (stream?.version ?? null) : null),
    decide: decideGroup,
    evolve: evolveGroup,
    index: (state) => ({ deleted: state?.deleted ?? false }),
    references: () => NO_GROUPS_NAMED,
  };
}
