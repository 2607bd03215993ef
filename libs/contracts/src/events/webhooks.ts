import type { EventOf } from './event-types';

/** Paths the RSP hosts under its webhook base URL. */
export const WEBHOOK_PATHS = {
  /** Location change events (OAF-100). */
  locationEvents: '/locations/events',
  /** Export completion notifications (spec). */
  exportEvents: '/locations/exports/events',
} as const;

/** Headers of a location event delivery (OAF-100). */
export const LOCATION_EVENT_HEADERS = {
  /** Event UUID; RSPs dedupe on it. */
  eventId: 'X-Event-Id',
  /** Event type, e.g. LOCATION_UPDATED. */
  eventType: 'X-Event-Type',
  /** Event timestamp, UTC with `Z`. */
  eventTimestamp: 'X-Event-Timestamp',
  /** The location's version after the event (the event's `version`), as a decimal: a receiver discards an older one. */
  eventSequence: 'X-Event-Sequence',
} as const;

/**
 * Body of a location event delivery: the envelope under the key `event`, with the location's version after the event
 * (1 for its creation, one more for each change), so a receiver can discard a stale or repeated event.
 */
export interface LocationEventDelivery {
  event: EventOf<'LOCATION_CREATED' | 'LOCATION_UPDATED'> & { version: number };
}
