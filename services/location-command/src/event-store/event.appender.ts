import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EVENT_CATALOG } from '@lx/contracts';
import { Outbox, type OutboxMessage } from '@lx/messaging';
import { AggregateStateWriter } from './aggregate-state.writer';
import { type EnvelopedEvent, EventEnvelopeFactory, kafkaHeadersOf } from './event-envelope.factory';
import type { AppendContext, StreamAppend } from './event-store.types';

// unnest: one statement with a fixed number of parameters whatever the batch size (Postgres allows 65,535 bind
// parameters per statement); global_position follows the array order.
const INSERT_EVENTS = `
  INSERT INTO events (stream_id, stream_type, stream_version, event_id, event_type, payload, recorded_at)
  SELECT stream_id, stream_type, stream_version, event_id, event_type, payload, $7::timestamptz
    FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[], $5::text[], $6::json[])
      AS e(stream_id, stream_type, stream_version, event_id, event_type, payload)`;

/**
 * The append of single writes: events with one parameterised statement, then the state rows and the outbox messages,
 * all on the caller's transaction so the log, the state and what reaches Kafka never disagree.
 */
@Injectable()
export class EventAppender {
  constructor(
    private readonly envelopes: EventEnvelopeFactory,
    private readonly states: AggregateStateWriter,
    private readonly outbox: Outbox,
  ) {}

  /** Appends the events with their envelopes, the state rows and the outbox messages; nothing for streams without events. */
  async append(manager: EntityManager, appends: readonly StreamAppend[], context: AppendContext): Promise<void> {
    const { parameters, messages } = eventInsertOf([...this.envelopes.envelopes(appends, context.timestamp)], context);
    if (messages.length === 0) return;
    await manager.query(INSERT_EVENTS, parameters);
    await this.states.write(manager, appends, context.timestamp);
    await this.outbox.append(manager, messages);
  }
}

/** The parameters of the events insert and the outbox message of each event, in the same order. */
export function eventInsertOf(
  events: readonly EnvelopedEvent[],
  context: AppendContext,
): { parameters: unknown[]; messages: OutboxMessage[] } {
  const messages: OutboxMessage[] = events.map((event) => ({
    topic: EVENT_CATALOG[event.type].topic,
    key: event.append.streamId,
    value: event.payload,
    headers: kafkaHeadersOf(event.version, context.correlationId),
  }));
  const parameters = [
    events.map((event) => event.append.streamId),
    events.map((event) => event.append.streamType),
    events.map((event) => event.version),
    events.map((event) => event.id),
    events.map((event) => event.type),
    events.map((event) => event.payload),
    context.timestamp,
  ];
  return { parameters, messages };
}
