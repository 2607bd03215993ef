import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { GroupIds } from '@lx/domain';
import { traceParentOf } from '@lx/platform';
import { AggregateStateWriter, aggregateStateParameters } from './aggregate-state.writer';
import { type EnvelopedEvent, EventEnvelopeFactory } from './event-envelope.factory';
import type { AppendContext, StreamAppend } from './event-store.types';

// unnest: one statement with a fixed number of parameters whatever the batch size (Postgres allows 65,535 bind
// parameters per statement); global_position follows the array order, tx_id is the transaction's (column default).
const INSERT_EVENTS = `
  INSERT INTO events
    (stream_id, stream_type, stream_version, event_id, event_type, payload, recorded_at, correlation_id, trace_parent)
  SELECT stream_id, stream_type, stream_version, event_id, event_type, payload, $7::timestamptz, $8::text, $9::text
    FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[], $5::text[], $6::json[])
      AS e(stream_id, stream_type, stream_version, event_id, event_type, payload)`;

/**
 * The append of one stream as one statement, on its own (autocommit): the state row is written only when it is still
 * at the version the write was decided on ($3) and every group the new state references is still there (locked FOR
 * SHARE until commit, so a delete waits for it and then counts it), and the events only when the state row was
 * written; the transaction order guard as in AggregateStateWriter. $1 stream id, $2 type, $3 version before,
 * $4–$7 the state row's columns, $8 time, $9–$12 the events' versions, ids, types and payloads, $13 correlation id,
 * $14 location group ids and $15 address group ids that must exist, $16 the write's trace context. The events_after_fence trigger runs at its end.
 */
const APPEND_IF_CURRENT = `
  WITH required AS (
    SELECT stream_id FROM aggregate_state
     WHERE NOT deleted
       AND ((stream_type = 'locationGroup' AND stream_id = ANY($14::uuid[]))
         OR (stream_type = 'addressGroup' AND stream_id = ANY($15::uuid[])))
     FOR SHARE
  ), state AS (
    INSERT INTO aggregate_state
      (stream_id, stream_type, version, deleted, location_group_id, address_group_id, serviceability_status,
       updated_at, last_tx)
    SELECT $1::uuid, $2::text, $3::int + cardinality($9::int[]), $4::boolean, $5::uuid, $6::uuid, $7::text,
           $8::timestamptz, pg_current_xact_id()
     WHERE (SELECT count(*) FROM required) = cardinality($14::uuid[]) + cardinality($15::uuid[])
    ON CONFLICT (stream_id) DO UPDATE SET
      version = EXCLUDED.version, deleted = EXCLUDED.deleted, location_group_id = EXCLUDED.location_group_id,
      address_group_id = EXCLUDED.address_group_id, serviceability_status = EXCLUDED.serviceability_status,
      updated_at = EXCLUDED.updated_at, last_tx = EXCLUDED.last_tx
    WHERE aggregate_state.version = $3::int AND aggregate_state.last_tx <= EXCLUDED.last_tx
    RETURNING 1
  ), appended AS (
    INSERT INTO events
      (stream_id, stream_type, stream_version, event_id, event_type, payload, recorded_at, correlation_id, trace_parent)
    SELECT $1::uuid, $2::text, e.version, e.id, e.type, e.payload, $8::timestamptz, $13::text, $16::text
      FROM unnest($9::int[], $10::uuid[], $11::text[], $12::json[]) AS e(version, id, type, payload)
     WHERE EXISTS (SELECT 1 FROM state)
    RETURNING 1
  )
  SELECT count(*)::int AS appended FROM appended`;

/**
 * The append of single writes: the state rows, then the events with one parameterised statement, on the caller's
 * transaction so the log and the state never disagree. Each event keeps the trace context of the write (the request's
 * span), which the relay publishes with it. The log is the outbox: the relay publishes these rows.
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
    // State rows first, then events, in every writer (this one, the bulk one, the one-statement append): two writers
    // creating one stream then wait for each other at the state row's key instead of deadlocking across two keys.
    await this.states.write(manager, appends, context.timestamp);
    await manager.query(INSERT_EVENTS, eventInsertOf(events, context));
  }

  /**
   * Appends the events of one stream in one statement (one round trip, its own transaction) if the stream is still
   * at `append.fromVersion` and the `required` groups still exist; false, with nothing written, when either no longer
   * holds. A stream with no events is not written (true).
   */
  async appendIfCurrent(
    manager: EntityManager,
    append: StreamAppend,
    context: AppendContext,
    required: GroupIds,
  ): Promise<boolean> {
    const events = [...this.envelopes.envelopes([append], context.timestamp)];
    if (events.length === 0) return true;
    const state = aggregateStateParameters([append]);
    const [row] = await manager.query<{ appended: number }[]>(APPEND_IF_CURRENT, [
      append.streamId,
      append.streamType,
      append.fromVersion,
      state.deleted[0],
      state.locationGroupIds[0],
      state.addressGroupIds[0],
      state.serviceabilityStatuses[0],
      context.timestamp,
      events.map((event) => event.version),
      events.map((event) => event.id),
      events.map((event) => event.type),
      events.map((event) => event.payload),
      context.correlationId ?? null,
      required.locationGroupIds,
      required.addressGroupIds,
      traceParentOf() ?? null,
    ]);
    return row?.appended === events.length;
  }
}

/** The parameters of the events insert, in event order, with the trace context active now (tracing.ts). */
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
    traceParentOf() ?? null,
  ];
}
