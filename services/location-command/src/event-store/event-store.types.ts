import type { EventType } from '@lx/contracts';

/** The kinds of aggregate whose events this service records. */
export type StreamType = 'location' | 'locationGroup' | 'addressGroup';

/** An aggregate as stored: its version and the `data` of its last event, which is always the whole resource. */
export interface StoredStream {
  streamId: string;
  streamType: StreamType;
  /** Number of events in the stream; the ETag of the resource. */
  version: number;
  /** The last event deleted the resource (groups only). */
  deleted: boolean;
  /** `data` of the last event: the complete resource after it. */
  data: unknown;
}

/** A fact decided by a rule of `@lx/domain`, before the envelope (id, timestamp, source) is added. */
export interface DecidedEvent {
  type: EventType;
  data: unknown;
  modifiedFields?: unknown;
}

/** Columns of aggregate_state that writes check and queries filter on. */
export interface StateIndex {
  deleted?: boolean;
  locationGroupId?: string;
  addressGroupId?: string;
  serviceabilityStatus?: string;
}

/** New events of one stream, and the facts about the stream after them. */
export interface StreamAppend {
  streamId: string;
  streamType: StreamType;
  /** The stream's version before these events; 0 for a new stream. */
  fromVersion: number;
  events: readonly DecidedEvent[];
  index: StateIndex;
}

/** What every event of one transaction shares. */
export interface AppendContext {
  /** ISO 8601 UTC time of the write: the envelopes' `timestamp`. */
  timestamp: string;
  /** Request id of the write, carried to consumers in a Kafka header. */
  correlationId?: string;
}
