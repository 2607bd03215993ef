import type { DomainError, ExistingGroups, GroupIds, Result } from '@lx/domain';
import type { DecidedEvent, StateIndex, StoredStream, StreamType } from './event-store.types';

/**
 * An aggregate as DeciderCommandHandler runs it: the pure rules of `@lx/domain` (decide, evolve) and how its state is
 * stored (its stream type, its state row's columns, the groups it references).
 */
export interface Decider<State, Command, Event extends DecidedEvent> {
  readonly streamType: StreamType;
  /** The state of a stored stream; a stream of another type is a ConflictError (ids are unique across aggregates). */
  stateOf(stream: StoredStream | undefined, streamId: string): State;
  /** The version an If-Match is compared with: null when the resource does not exist (a deleted group). */
  currentVersion(stream: StoredStream | undefined, state: State): number | null;
  decide(command: Command, state: State): Result<Event[], DomainError>;
  evolve(state: State, event: Event): State;
  /** The aggregate_state columns of a state. */
  index(state: State): StateIndex;
  /** The groups a state references: they must still exist when its events are appended. */
  references(state: State): GroupIds;
}

/** For commands that name no group. */
export const NO_GROUPS_NAMED: GroupIds = { locationGroupIds: [], addressGroupIds: [] };

/** What a command is built from besides the caller's input, read when the write is decided. */
export interface WriteContext {
  /** The write's time, from the injected clock. */
  now: string;
  /** The groups that exist among those the command names and the current state references. */
  existingGroups: ExistingGroups;
  /** Locations referencing the stream (a group), counted under its lock; 0 unless the request asks for it. */
  referencingLocations: number;
}

/** One write of one aggregate. */
export interface WriteRequest<Command> {
  streamId: string;
  /** The caller's If-Match header, checked against the current version. */
  ifMatch?: string;
  correlationId?: string;
  /** Group ids the command names, read with the stream (see `referencedGroupIds` of `@lx/domain`). */
  namedGroups?: GroupIds;
  /**
   * Count the locations referencing this stream under its lock (a group delete): such a count holds only while the
   * group's row is locked, so the write takes the locked path at once.
   */
  countReferences?: boolean;
  command(context: WriteContext): Command;
}

/** What a write did. */
export interface WriteOutcome<State> {
  /** The state after the write (the same as before when nothing changed). */
  state: State;
  /** The stream's version after the write: the ETag. */
  version: number;
  /** The stream existed before (a deleted group's stream exists). */
  existed: boolean;
  events: readonly DecidedEvent[];
}

/** The stream and the groups a write is decided on. */
export interface WriteRead {
  stream?: StoredStream;
  existingGroups: ExistingGroups;
  referencingLocations: number;
}
