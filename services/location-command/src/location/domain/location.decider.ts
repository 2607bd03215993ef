import type { Location } from '@lx/contracts';
import {
  ConflictError,
  decideLocation,
  evolveLocation,
  type LocationCommand,
  type LocationEvent,
  type LocationState,
  referencedGroupIds,
  serviceabilityStatusOf,
} from '@lx/domain';
import type { Decider, WriteOutcome } from '../../event-store/decider';
import type { StateIndex, StoredStream } from '../../event-store/event-store.types';

/** A location after a write, with its version (the ETag) and what the write did. */
export interface LocationWriteResult {
  location: Location;
  version: number;
  /** The location did not exist before. */
  created: boolean;
  /** Events were recorded; false for a write that changed nothing. */
  changed: boolean;
}

/** The location aggregate for DeciderCommandHandler: the rules of `@lx/domain` and the location's state row. */
export const LOCATION_DECIDER: Decider<LocationState, LocationCommand, LocationEvent> = {
  streamType: 'location',
  stateOf: locationStateOf,
  currentVersion: (stream) => stream?.version ?? null,
  decide: decideLocation,
  evolve: evolveLocation,
  index: (state) => (state === undefined ? {} : locationIndex(state)),
  references: (state) => referencedGroupIds(state),
};

/** What a location write answers. */
export function locationWriteResultOf(outcome: WriteOutcome<LocationState>, locationId: string): LocationWriteResult {
  if (outcome.state === undefined) throw new Error(`location ${locationId} has no state after a successful write`);
  return {
    location: outcome.state,
    version: outcome.version,
    created: !outcome.existed,
    changed: outcome.events.length > 0,
  };
}

/** The location state of a stored stream; an id that belongs to a group is a conflict, never a location. */
export function locationStateOf(stream: StoredStream | undefined, id: string): LocationState {
  if (stream === undefined) return undefined;
  if (stream.streamType !== 'location') {
    throw new ConflictError(`${id} is the id of a ${stream.streamType}, not of a location`, {
      resourceId: id,
      resourceType: stream.streamType,
    });
  }
  return stream.data as Location;
}

/** The aggregate_state columns of a location: its group references and serviceability status. */
export function locationIndex(location: Location): StateIndex {
  return {
    locationGroupId: location.locationGroupId,
    addressGroupId: location.address?.addressGroupId,
    serviceabilityStatus: serviceabilityStatusOf(location),
  };
}
