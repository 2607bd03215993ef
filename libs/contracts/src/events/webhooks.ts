import type { EventOf } from './event-types';

/** Paths the RSP hosts under its webhook base URL. */
export const WEBHOOK_PATHS = {
  /** Location change events (OAF-100), and the group change events beside them. */
  locationEvents: '/locations/events',
  /** Export completion notifications (spec). */
  exportEvents: '/locations/exports/events',
} as const;

/** Headers of a change event delivery (OAF-100's location event headers; group events carry the same). */
export const LOCATION_EVENT_HEADERS = {
  /** Event UUID; RSPs dedupe on it. */
  eventId: 'X-Event-Id',
  /** Event type, e.g. LOCATION_UPDATED. */
  eventType: 'X-Event-Type',
  /** Event timestamp, UTC with `Z`. */
  eventTimestamp: 'X-Event-Timestamp',
  /** The resource's version after the event (the event's `version`), as a decimal: a receiver discards an older one. */
  eventSequence: 'X-Event-Sequence',
} as const;

/** The location event types of OAF-100. */
export const LOCATION_EVENT_TYPES = ['LOCATION_CREATED', 'LOCATION_UPDATED'] as const;
/** The group event types: the operator's groups, kept in sync like locations. */
export const GROUP_EVENT_TYPES = [
  'LOCATION_GROUP_CREATED',
  'LOCATION_GROUP_UPDATED',
  'LOCATION_GROUP_DELETED',
  'ADDRESS_GROUP_CREATED',
  'ADDRESS_GROUP_UPDATED',
  'ADDRESS_GROUP_DELETED',
] as const;
/** Every change an RSP's copy follows: the webhooks to `/locations/events` and the change feed carry exactly these. */
export const CHANGE_EVENT_TYPES = [...LOCATION_EVENT_TYPES, ...GROUP_EVENT_TYPES] as const;
/** A change event type. */
export type ChangeEventType = (typeof CHANGE_EVENT_TYPES)[number];

/** One change as an RSP receives it: the envelope with the version of its resource after the event. */
export type ChangeEvent<T extends ChangeEventType = ChangeEventType> = {
  [K in T]: EventOf<K> & { version: number };
}[T];

/**
 * Body of a change event delivery (and one item of the change feed): the envelope under the key `event`, with the
 * version of its location or group after the event (1 for its creation, one more for each change), so a receiver can
 * discard a stale or repeated event.
 */
export interface ChangeEventDelivery<T extends ChangeEventType = ChangeEventType> {
  event: ChangeEvent<T>;
}

/** The body of a location event delivery (OAF-100). */
export type LocationEventDelivery = ChangeEventDelivery<(typeof LOCATION_EVENT_TYPES)[number]>;

/**
 * The one way a change is described to an RSP, by webhook and by the change feed alike: `{ "event": <envelope,
 * version> }`. The envelope's keys keep their order and `version` comes last.
 */
export function changeDeliveryOf<T extends ChangeEventType>(
  event: EventOf<T>,
  version: number,
): ChangeEventDelivery<T> {
  return { event: { ...event, version } };
}

/** The X-Event-* headers of a change delivery. */
export function changeHeadersOf(event: EventOf<ChangeEventType>, version: number): Record<string, string> {
  return {
    [LOCATION_EVENT_HEADERS.eventId]: event.id,
    [LOCATION_EVENT_HEADERS.eventType]: event.type,
    [LOCATION_EVENT_HEADERS.eventTimestamp]: event.timestamp,
    [LOCATION_EVENT_HEADERS.eventSequence]: String(version),
  };
}
