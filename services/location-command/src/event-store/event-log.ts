import { Injectable } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { EVENT_CATALOG, type EventType } from '@lx/contracts';
import { type RelayBatch, type RelayMessage, RelaySource } from '@lx/messaging';
import { kafkaHeadersOf } from './event-envelope.factory';

/** A position in the log: the appending transaction's id (xid8, as text) and the event's global position. */
export interface LogPosition {
  txId: string;
  position: string;
}

/**
 * $1, $2 the checkpoint; $3 the batch size. The events after the checkpoint in (tx_id, global_position) order, of
 * transactions below the snapshot's xmin only: those have all ended, and any transaction still to commit has an id at
 * or above it, so no event can ever appear behind what this returned. (Ordered by the columns, not by the text
 * the select turns them into.)
 */
const EVENTS_AFTER = `
  SELECT e.tx_id::text AS tx, e.global_position::text AS position, e.stream_id, e.stream_version, e.event_type,
         e.payload::text AS payload, e.correlation_id, e.trace_parent, e.recorded_at
    FROM events e
   WHERE (e.tx_id, e.global_position) > ($1::xid8, $2::bigint)
     AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY e.tx_id, e.global_position
   LIMIT $3`;

/**
 * $1, $2 the checkpoint. When the first event after it that has committed, if any, was recorded: with none to
 * publish, one that waits for an older transaction still running (anywhere on the cluster) shows as relay lag.
 */
const OLDEST_WAITING = `
  SELECT e.recorded_at FROM events e
   WHERE (e.tx_id, e.global_position) > ($1::xid8, $2::bigint)
   ORDER BY e.tx_id, e.global_position
   LIMIT 1`;

/**
 * The checkpoint, and whether it is ahead of the transaction ids this cluster hands out: transaction ids are local to
 * a PostgreSQL cluster, and after a restore into another one new events would sort behind the checkpoint and never be
 * published.
 */
const CHECKPOINT = `
  SELECT tx_id::text AS "txId", position::text AS position,
         tx_id >= pg_snapshot_xmax(pg_current_snapshot()) AS ahead
    FROM relay_checkpoint`;

/**
 * $1, $2 the checkpoint read at resume; $3, $4 the new one. Moves the checkpoint only from where this leader left it:
 * when another relay has moved it meanwhile (this one lost its leader lock without noticing), nothing is updated.
 * Committed without waiting for the WAL flush (synchronous_commit off for this statement's transaction only): a
 * checkpoint lost in a database crash makes the relay publish those batches again (consumers dedupe by event id),
 * never skip one, and a round no longer waits for a disk flush of its own beside the writers'.
 */
const MOVE_CHECKPOINT = `
  WITH no_flush_wait AS (SELECT set_config('synchronous_commit', 'off', true))
  UPDATE relay_checkpoint SET tx_id = $3::xid8, position = $4::bigint, updated_at = clock_timestamp()
    FROM no_flush_wait
   WHERE tx_id = $1::xid8 AND position = $2::bigint`;

interface EventRow {
  tx: string;
  position: string;
  stream_id: string;
  stream_version: number;
  event_type: EventType;
  payload: string;
  correlation_id: string | null;
  trace_parent: string | null;
  recorded_at: Date;
}

/**
 * location-command's event log as the relay's source: the events table is the outbox. One copy of each payload, no
 * per-row update once published; the relay's progress is one checkpoint row, moved once per batch.
 */
@Injectable()
export class EventLog extends RelaySource {
  private checkpoint?: LogPosition;

  leaderLock(schema: string): string {
    return `event-log-relay:${schema}`;
  }

  async resume(runner: QueryRunner): Promise<void> {
    const [row] = (await runner.query(CHECKPOINT)) as (LogPosition & { ahead: boolean })[];
    if (row === undefined)
      throw new Error('relay_checkpoint has no row: the migrations seed it, it must not be deleted');
    if (row.ahead) {
      throw new Error(
        `relay_checkpoint (transaction ${row.txId}) is ahead of this PostgreSQL cluster's transaction ids: the database ` +
          'was restored into another cluster; see "Restoring into another cluster" in docs/location-command.md',
      );
    }
    this.checkpoint = { txId: row.txId, position: row.position };
  }

  async read(runner: QueryRunner, limit: number, after?: RelayBatch): Promise<RelayBatch> {
    const from = (after?.end as LogPosition | undefined) ?? this.resumed();
    const rows = (await runner.query(EVENTS_AFTER, [from.txId, from.position, limit])) as EventRow[];
    if (rows.length === 0) {
      const [waiting] = (await runner.query(OLDEST_WAITING, [from.txId, from.position])) as { recorded_at: Date }[];
      return { messages: [], end: undefined, oldestWaiting: waiting?.recorded_at };
    }
    const messages: RelayMessage[] = rows.map((row) => ({
      topic: topicOf(row),
      key: row.stream_id,
      value: row.payload,
      headers: kafkaHeadersOf(row.stream_version, row.correlation_id ?? undefined, row.trace_parent ?? undefined),
      createdAt: row.recorded_at,
    }));
    const last = rows.at(-1);
    const end: LogPosition | undefined = last && { txId: last.tx, position: last.position };
    return { messages, end };
  }

  async confirm(runner: QueryRunner, batch: RelayBatch): Promise<void> {
    const from = this.resumed();
    const to = batch.end as LogPosition | undefined;
    if (to === undefined) return;
    const [, moved] = (await runner.query(MOVE_CHECKPOINT, [from.txId, from.position, to.txId, to.position])) as [
      unknown,
      number,
    ];
    if (moved !== 1) {
      this.checkpoint = undefined;
      throw new Error('the relay checkpoint was moved by another relay: leading again from the stored checkpoint');
    }
    this.checkpoint = to;
  }

  /** Wakes the relay: a write committed events. */
  appended(): void {
    this.signals.emit('appended');
  }

  private resumed(): LogPosition {
    if (this.checkpoint === undefined) throw new Error('the event log relay reads only after resume');
    return this.checkpoint;
  }
}

/** The topic of an event; a type without one stops the relay with a message that names the event. */
function topicOf(row: EventRow): string {
  const entry = EVENT_CATALOG[row.event_type] as (typeof EVENT_CATALOG)[EventType] | undefined;
  if (entry === undefined) {
    throw new Error(
      `event at position ${row.position} (stream ${row.stream_id}) has type ${row.event_type}, which has no topic`,
    );
  }
  return entry.topic;
}
