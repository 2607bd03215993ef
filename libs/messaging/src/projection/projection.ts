import type { QueryResult, QueryResultRow } from 'pg';
import type { AnyEvent, EventType, TopicName } from '@lx/contracts';

/** The transaction a projection writes in; the consumer commits it together with the consumed offsets. */
export interface ProjectionTransaction {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/** A valid event with the aggregate version its producer recorded (Kafka header lx-aggregate-version). */
export interface ProjectedEvent {
  event: AnyEvent;
  /** Version of the aggregate after this event, from 1. */
  version: number;
  topic: string;
  partition: number;
  offset: string;
  /** The correlation id its producer recorded (Kafka header lx-correlation-id), when there is one. */
  correlationId?: string;
  /**
   * The W3C trace context of the consumer's span for this event (its `traceparent` header), when the event carries
   * one and tracing is on: what a projection stores to continue the trace later (the webhook dispatcher's deliveries).
   */
  traceParent?: string;
}

/**
 * A read model fed by events. `apply` receives events of one partition in offset order and must be idempotent by
 * aggregate version: an event whose version is not newer than the one stored for its aggregate changes nothing. That
 * makes duplicates, redeliveries and stale events harmless, and lets a rebuilt table take over from a live one.
 */
export interface Projection {
  /** Name in logs and metrics. */
  readonly name: string;
  readonly topics: readonly TopicName[];
  /** Event types the projection applies; valid events of other types on its topics are passed over. */
  readonly eventTypes: readonly EventType[];
  apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void>;
}

/**
 * A projection rule that cannot hold for this event whatever is retried (an impossible state); the consumer
 * dead-letters the event instead of stalling its partition.
 */
export class PermanentProjectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentProjectionError';
  }
}

/** Of several events of one aggregate in a batch, the one with the highest version (each carries the full state). */
export function latestPerAggregate(
  events: readonly ProjectedEvent[],
  aggregateId: (event: ProjectedEvent) => string,
): ProjectedEvent[] {
  const latest = new Map<string, ProjectedEvent>();
  for (const event of events) {
    const id = aggregateId(event);
    const seen = latest.get(id);
    if (seen === undefined || seen.version < event.version) latest.set(id, event);
  }
  return [...latest.values()];
}
