import { Injectable } from '@nestjs/common';
import type { Location } from '@lx/contracts';
import {
  ConflictError,
  decideLocation,
  evolveLocation,
  type ExistingGroups,
  type LocationCommand,
  type LocationState,
  referencedGroupIds,
  serviceabilityStatusOf,
} from '@lx/domain';
import { EventStore } from '../../event-store/event-store';
import type { StateIndex, StoredStream } from '../../event-store/event-store.types';
import { assertIfMatch, Clock } from '@lx/platform';

/** A location after a write, with its version (the ETag) and what the write did. */
export interface LocationWriteResult {
  location: Location;
  version: number;
  /** The location did not exist before. */
  created: boolean;
  /** Events were recorded; false for a write that changed nothing. */
  changed: boolean;
}

/** What a single-location write says besides its rule command. */
export interface LocationWriteOptions {
  /** The caller's If-Match header, checked against the current version inside the transaction. */
  ifMatch?: string;
  correlationId?: string;
}

/** What the rule command of a write is built from, known only inside the transaction. */
export interface LocationWriteContext {
  now: string;
  existingGroups: ExistingGroups;
}

/**
 * The steps every single-location write shares: lock the location, check If-Match, load the groups the body names,
 * decide with `@lx/domain`, then append events, state and outbox in the same transaction. Rejections are thrown as
 * the domain's typed errors.
 */
@Injectable()
export class LocationWriter {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  write(
    locationId: string,
    options: LocationWriteOptions,
    referencing: unknown,
    toCommand: (context: LocationWriteContext) => LocationCommand,
  ): Promise<LocationWriteResult> {
    return this.store.transaction(async (transaction) => {
      const stream = (await transaction.load([locationId])).get(locationId);
      const state = locationStateOf(stream, locationId);
      assertIfMatch(options.ifMatch, stream?.version ?? null);
      const existingGroups = await transaction.existingGroups(referencedGroupIds(referencing, state));
      const now = this.clock.now().toISOString();
      const decided = decideLocation(toCommand({ now, existingGroups }), state);
      if (!decided.ok) throw decided.error;

      const events = decided.value;
      const location = events.reduce(evolveLocation, state);
      if (location === undefined) throw new Error(`location ${locationId} has no state after a successful write`);
      const fromVersion = stream?.version ?? 0;
      await transaction.append(
        [
          {
            streamId: locationId,
            streamType: 'location',
            fromVersion,
            events,
            index: locationIndex(location),
          },
        ],
        { timestamp: now, correlationId: options.correlationId },
      );
      return {
        location,
        version: fromVersion + events.length,
        created: stream === undefined,
        changed: events.length > 0,
      };
    });
  }
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
