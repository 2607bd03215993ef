import { Inject, Injectable } from '@nestjs/common';
import { type EventType, KAFKA_HEADERS } from '@lx/contracts';
import { IdGenerator, TRACEPARENT } from '@lx/platform';
import type { StreamAppend } from './event-store.types';

/** The `source` of every envelope this service writes. */
export const EVENT_SOURCE = Symbol('EVENT_SOURCE');

/** One event of an append, with its new id and its OAF-100 envelope serialized once. */
export interface EnvelopedEvent {
  append: StreamAppend;
  /** The stream version this event makes. */
  version: number;
  id: string;
  type: EventType;
  /** The envelope as JSON: the events table stores it and the relay publishes it byte for byte. */
  payload: string;
}

/** Wraps decided events in their envelopes: a new event id, the write's timestamp and the service as source. */
@Injectable()
export class EventEnvelopeFactory {
  constructor(
    private readonly ids: IdGenerator,
    @Inject(EVENT_SOURCE) private readonly source: string,
  ) {}

  /** The events of `appends` in order, each numbered after its stream's `fromVersion`. */
  *envelopes(appends: readonly StreamAppend[], timestamp: string): Generator<EnvelopedEvent> {
    for (const append of appends) {
      for (let index = 0; index < append.events.length; index += 1) {
        const event = append.events[index]!;
        const id = this.ids.next();
        const payload = JSON.stringify({
          id,
          type: event.type,
          timestamp,
          source: this.source,
          data: event.data,
          ...(event.modifiedFields === undefined ? {} : { modifiedFields: event.modifiedFields }),
        });
        yield { append, version: append.fromVersion + index + 1, id, type: event.type, payload };
      }
    }
  }
}

/**
 * Kafka headers of one event: the aggregate version, and the correlation id and W3C trace context (`traceparent`)
 * when the write has them.
 */
export function kafkaHeadersOf(
  version: number,
  correlationId: string | undefined,
  traceParent?: string,
): Record<string, string> {
  const headers: Record<string, string> = { [KAFKA_HEADERS.aggregateVersion]: String(version) };
  if (correlationId !== undefined) headers[KAFKA_HEADERS.correlationId] = correlationId;
  if (traceParent !== undefined) headers[TRACEPARENT] = traceParent;
  return headers;
}
