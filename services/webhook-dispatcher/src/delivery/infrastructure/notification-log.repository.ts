import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { WebhookEventType } from '@lx/contracts';
import type { ProjectionTransaction } from '@lx/messaging';
import { PG_POOL } from '@lx/platform';
import type { Notification } from '../intake/notification';

/** A notification with its position in the log, as endpoints read it. */
export interface LogMessage {
  position: number;
  eventId: string;
  eventType: WebhookEventType;
  path: string;
  body: string;
  /** The body's bytes, encoded once for every endpoint that receives it. */
  bytes: Buffer;
  headers: Record<string, string>;
  correlationId: string | null;
  /** The W3C trace context its deliveries continue. */
  traceParent: string | null;
  /** The event's own time (ms), which a new endpoint's start time is compared with. */
  occurredAtMs: number;
  recipient: string | null;
  /** The location or group the message is about (column location_id; the ids are UUIDs, never shared). */
  resourceId: string | null;
}

/** Which messages of the log an endpoint receives. */
export interface EndpointScope {
  clientId: string;
  eventTypes: readonly WebhookEventType[] | null;
  /** The endpoint receives events that happened at or after this time (ms) only. */
  startAtMs: number;
}

/** Whether the endpoint receives the message. */
export const inScope = (scope: EndpointScope, message: LogMessage): boolean =>
  (message.recipient === null || message.recipient === scope.clientId) &&
  (scope.eventTypes === null || scope.eventTypes.includes(message.eventType)) &&
  message.occurredAtMs >= scope.startAtMs;

interface MessageRow {
  position: string;
  event_id: string;
  event_type: WebhookEventType;
  path: string;
  body: string;
  headers: Record<string, string>;
  correlation_id: string | null;
  trace_parent: string | null;
  occurred_at: Date;
  recipient: string | null;
  location_id: string | null;
}

const MESSAGE_COLUMNS = `position, event_id, event_type, path, body, headers, correlation_id, trace_parent, occurred_at,
  recipient, location_id`;

const messageOf = (row: MessageRow): LogMessage => ({
  position: Number(row.position),
  eventId: row.event_id,
  eventType: row.event_type,
  path: row.path,
  body: row.body,
  bytes: Buffer.from(row.body),
  headers: row.headers,
  correlationId: row.correlation_id,
  traceParent: row.trace_parent,
  occurredAtMs: row.occurred_at.getTime(),
  recipient: row.recipient,
  resourceId: row.location_id,
});

/**
 * Where the cursor of an endpoint that starts receiving at `startAt` (a SQL expression) begins: before every
 * notification appended since a minute before that time (the intake may lag the events' own clock), else at the end
 * of the log. The endpoint's scope then passes over those of events that happened before `startAt`.
 */
export const startPositionSql = (startAt: string): string =>
  `coalesce((SELECT min(position) - 1 FROM notifications WHERE created_at >= ${startAt} - interval '1 minute'),
     (SELECT coalesce(max(position), 0) FROM notifications))`;

/** The channel on which an append is announced to every replica (LISTEN), per schema. */
export const LOG_CHANNEL_SQL = `'webhook_log_' || md5(current_schema())`;

/**
 * The notification log: one row per event however many endpoints receive it, in positions that commit in order.
 * Appends are serialized by a transaction-scoped advisory lock, so a position becomes visible only after every lower
 * one: a reader that has seen position p will never later find a committed position below p (endpoint cursors rely
 * on it).
 */
@Injectable()
export class NotificationLogRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Appends the notifications not yet in the log (an event consumed again adds nothing) in the projection's
   * transaction, and announces the append to every replica when it commits. Returns how many were new.
   */
  async append(transaction: ProjectionTransaction, notifications: readonly Notification[]): Promise<number> {
    if (notifications.length === 0) return 0;
    const column = <T>(pick: (notification: Notification) => T) => notifications.map(pick);
    await transaction.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':notification-log'))`);
    const { rowCount } = await transaction.query(
      `INSERT INTO notifications (event_id, event_type, path, body, headers, correlation_id, occurred_at, created_at,
         recipient, location_id, trace_parent)
       SELECT event_id, event_type, path, body, headers, correlation_id, occurred_at, now(), recipient, location_id,
         trace_parent
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::timestamptz[],
         $8::text[], $9::text[], $10::text[])
         AS e(event_id, event_type, path, body, headers, correlation_id, occurred_at, recipient, location_id,
           trace_parent)
       ON CONFLICT (event_id) DO NOTHING`,
      [
        column((n) => n.eventId),
        column((n) => n.eventType),
        column((n) => n.path),
        column((n) => n.body),
        column((n) => JSON.stringify(n.headers)),
        column((n) => n.correlationId ?? null),
        column((n) => n.occurredAt),
        column((n) => n.recipient ?? null),
        column((n) => n.resourceId ?? null),
        column((n) => n.traceParent ?? null),
      ],
    );
    if ((rowCount ?? 0) > 0) await transaction.query(`SELECT pg_notify(${LOG_CHANNEL_SQL}, '')`);
    return rowCount ?? 0;
  }

  /** Every message after `position`, oldest first, at most `limit`. */
  async after(position: number, limit: number): Promise<LogMessage[]> {
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM notifications WHERE position > $1 ORDER BY position LIMIT $2`,
      [position, limit],
    );
    return rows.map(messageOf);
  }

  /** The endpoint's messages after `position` up to `upTo`, oldest first, at most `limit` (a cursor behind the window). */
  async page(scope: EndpointScope, position: number, upTo: number, limit: number): Promise<LogMessage[]> {
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM notifications
       WHERE position > $1 AND position <= $2 AND (recipient IS NULL OR recipient = $3)
         AND ($4::text[] IS NULL OR event_type = ANY ($4::text[])) AND occurred_at >= $5
       ORDER BY position LIMIT $6`,
      [position, upTo, scope.clientId, scope.eventTypes, new Date(scope.startAtMs), limit],
    );
    return rows.map(messageOf);
  }

  /** The last position in the log (0 when empty). */
  async head(): Promise<number> {
    const { rows } = await this.pool.query<{ head: string }>(
      `SELECT coalesce(max(position), 0) AS head FROM notifications`,
    );
    return Number(rows[0]?.head ?? 0);
  }
}
