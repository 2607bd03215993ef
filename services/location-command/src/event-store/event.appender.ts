import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AggregateStateWriter } from './aggregate-state.writer';
import { type EnvelopedEvent, EventEnvelopeFactory } from './event-envelope.factory';
import type { AppendContext, StreamAppend } from './event-store.types';

// unnest: one statement with a fixed number of parameters whatever the batch size (Postgres allows 65,535 bind
// parameters per statement); global_position follows the array order, tx_id is the transaction's (column default).
const INSERT_EVENTS = `
  INSERT INTO events (stream_id, stream_type, stream_version, event_id, event_type, payload, recorded_at, correlation_id)
  SELECT stream_id, stream_type, stream_version, event_id, event_type, payload, $7::timestamptz, $8::text
    FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[], $5::text[], $6::json[])
      AS e(stream_id, stream_type, stream_version, event_id, event_type, payload)`;

/**
 * The append of single writes: events with one parameterised statement, then the state rows, on the caller's
 * transaction so the log and the state never disagree. The log is the outbox: the relay publishes these rows.
 */
@Injectable()
export class EventAppender {
  constructor(
    private readonly envelopes: EventEnvelopeFactory,
    private readonly states: AggregateStateWriter,
  ) {}

  /** Appends the events with their envelopes and the state rows; nothing for streams without events. */
  async append(manager: EntityManager, appends: readonly StreamAppend[], context: AppendContext): Promise<void> {
    const events = [...this.envelopes.envelopes(appends, context.timestamp)];
    if (events.length === 0) return;
    await manager.query(INSERT_EVENTS, eventInsertOf(events, context));
    await this.states.write(manager, appends, context.timestamp);
  }
}

/** The parameters of the events insert, in event order. */
export function eventInsertOf(events: readonly EnvelopedEvent[], context: AppendContext): unknown[] {
  return [
    events.map((event) => event.append.streamId),
    events.map((event) => event.append.streamType),
    events.map((event) => event.version),
    events.map((event) => event.id),
    events.map((event) => event.type),
    events.map((event) => event.payload),
    context.timestamp,
    context.correlationId ?? null,
  ];
}
