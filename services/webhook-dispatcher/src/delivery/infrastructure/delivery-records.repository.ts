import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { Delivery, DeliveryAttempt, Endpoint, WebhookEventType } from '@lx/contracts';
import { type DeliveryListQuery, type Listed, parseDeliveryId } from '@lx/domain';
import { PG_POOL, ReadPool } from '@lx/platform';
import { startPositionSql } from './notification-log.repository';

interface DeliveryRow {
  id: string;
  client_id: string;
  event_id: string;
  event_type: WebhookEventType;
  status: Delivery['status'];
  attempts: number;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  finished_at: Date | null;
}

interface AttemptRow {
  attempt: number;
  attempted_at: Date;
  url: string;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

interface EndpointRow {
  client_id: string;
  webhook_url: string | null;
  enabled: boolean;
  consecutive_failures: number;
  disabled_at: Date | null;
  disabled_reason: string | null;
  event_types: WebhookEventType[] | null;
  pending: string;
}

const DELIVERY_COLUMNS = `d.id, d.client_id, d.event_id, d.event_type, d.status, d.attempts, d.created_at,
  d.last_attempt_at, d.next_attempt_at, d.last_status_code, d.last_error, d.finished_at`;

const optional = <K extends string, V>(key: K, value: V | null): Partial<Record<K, V>> =>
  value === null ? {} : ({ [key]: value } as Record<K, V>);
const iso = (value: Date | null) => (value === null ? null : value.toISOString());

function deliveryOf(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    clientId: row.client_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    createdAt: row.created_at.toISOString(),
    ...optional('lastAttemptAt', iso(row.last_attempt_at)),
    ...optional('nextAttemptAt', row.status === 'PENDING' ? iso(row.next_attempt_at) : null),
    ...optional('lastStatusCode', row.last_status_code),
    ...optional('lastError', row.last_error),
    ...optional('finishedAt', iso(row.finished_at)),
  };
}

function attemptOf(row: AttemptRow): DeliveryAttempt {
  return {
    attempt: row.attempt,
    attemptedAt: row.attempted_at.toISOString(),
    url: row.url,
    ...optional('statusCode', row.status_code),
    latencyMs: row.latency_ms,
    ...optional('responseExcerpt', row.response_excerpt),
    ...optional('error', row.error),
  };
}

function endpointOf(row: EndpointRow): Endpoint {
  return {
    clientId: row.client_id,
    ...optional('webhookUrl', row.webhook_url),
    enabled: row.enabled,
    state: row.disabled_at !== null ? 'DISABLED' : row.consecutive_failures > 0 ? 'FAILING' : 'HEALTHY',
    consecutiveFailures: row.consecutive_failures,
    ...optional('disabledAt', iso(row.disabled_at)),
    ...optional('disabledReason', row.disabled_reason),
    ...optional('eventTypes', row.event_types),
    pendingDeliveries: Number(row.pending),
  };
}

const ENDPOINT_SELECT = `SELECT s.client_id, s.webhook_url, s.enabled, s.consecutive_failures, s.disabled_at,
    s.disabled_reason, s.event_types,
    (SELECT count(*) FROM delivery_view d WHERE d.client_id = s.client_id AND d.status = 'PENDING') AS pending
  FROM subscriptions s`;

/**
 * Reads and operator actions on the delivery records: lists, one delivery with its attempts, redrives, endpoints. The
 * reads (an RSP's or an SRE's) are on the ReadPool, under its statement timeout; the writes on the service's pool.
 */
@Injectable()
export class DeliveryRecordsRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly reads: ReadPool,
  ) {}

  /** Deliveries matching the query, newest first, and how many match in all: a read on the ReadPool. */
  async list(query: DeliveryListQuery): Promise<{ items: Delivery[] } & Listed> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    const where = (condition: (parameter: string) => string, value: unknown) => {
      values.push(value);
      conditions.push(condition(`$${values.length}`));
    };
    if (query.clientId !== undefined) where((p) => `d.client_id = ${p}`, query.clientId);
    if (query.status !== undefined) where((p) => `d.status = ${p}`, query.status);
    if (query.since !== undefined) where((p) => `d.created_at >= ${p}`, query.since);
    if (query.until !== undefined) where((p) => `d.created_at < ${p}`, query.until);
    const { rows, ...listed } = await this.reads.page<DeliveryRow>({
      columns: DELIVERY_COLUMNS,
      table: 'delivery_view d',
      conditions,
      values,
      page: query.page,
      order: 'd.created_at DESC, d.id DESC',
    });
    return { items: rows.map(deliveryOf), ...listed };
  }

  /** One delivery with its attempts; only the client's own when `clientId` is given. */
  async find(id: string, clientId?: string): Promise<{ delivery: Delivery; attempts: DeliveryAttempt[] } | undefined> {
    const row = await this.one(id, clientId);
    if (row === undefined) return undefined;
    const attempts = await this.reads.query<AttemptRow>(
      `SELECT attempt, attempted_at, url, status_code, latency_ms, response_excerpt, error
       FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`,
      [id],
    );
    return { delivery: deliveryOf(row), attempts: attempts.rows.map(attemptOf) };
  }

  /**
   * Makes an ended delivery (DELIVERED, FAILED, DEAD) PENDING and due now, with a fresh run of the retry schedule
   * and the same webhook-id; a message delivered at its first attempt gets its delivery row now. Returns the
   * delivery's status before, or undefined when it does not exist (or is not the client's).
   */
  async redrive(id: string, clientId?: string): Promise<Delivery['status'] | undefined> {
    const found = await this.one(id, clientId);
    if (found === undefined || found.status === 'PENDING') return found?.status;
    await this.pool.query(
      `INSERT INTO deliveries (id, event_id, client_id, status, attempts, schedule_start, next_attempt_at, created_at)
       VALUES ($1, $2, $3, 'PENDING', 1, 1, now(), $4)
       ON CONFLICT (id) DO UPDATE SET status = 'PENDING', next_attempt_at = now(),
         schedule_start = deliveries.attempts, finished_at = NULL
       WHERE deliveries.status <> 'PENDING'`,
      [found.id, found.event_id, found.client_id, found.created_at],
    );
    return found.status;
  }

  /** One delivery as the view shows it: a recorded one by its id, a derived id by its position and endpoint. */
  private async one(id: string, clientId?: string): Promise<DeliveryRow | undefined> {
    const derived = parseDeliveryId(id);
    const { rows } = await this.reads.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM delivery_view d
       WHERE d.id = $1 AND ($2::text IS NULL OR d.client_id = $2) AND ($3::bigint IS NULL OR d.position = $3)`,
      [id, clientId ?? null, derived?.position ?? null],
    );
    return rows[0];
  }

  /** Redrives every DEAD delivery of the client created at or after `since`; returns how many. */
  async redriveDead(clientId: string, since: string): Promise<number> {
    const { rowCount } = await this.pool.query(
      `UPDATE deliveries SET status = 'PENDING', next_attempt_at = now(), schedule_start = attempts, finished_at = NULL
       WHERE client_id = $1 AND status = 'DEAD' AND created_at >= $2`,
      [clientId, since],
    );
    return rowCount ?? 0;
  }

  async endpoints(): Promise<Endpoint[]> {
    const { rows } = await this.reads.query<EndpointRow>(`${ENDPOINT_SELECT} ORDER BY s.client_id`);
    return rows.map(endpointOf);
  }

  async endpoint(clientId: string): Promise<Endpoint | undefined> {
    const { rows } = await this.reads.query<EndpointRow>(`${ENDPOINT_SELECT} WHERE s.client_id = $1`, [clientId]);
    return rows[0] === undefined ? undefined : endpointOf(rows[0]);
  }

  /** Clears an endpoint's DISABLED state and failure run (after the RSP fixed it); false when there is no such client. */
  async enableEndpoint(clientId: string): Promise<boolean> {
    // A disabled endpoint's cursor starts again now: what happened while it was disabled is not sent.
    const { rowCount } = await this.pool.query(
      `UPDATE subscriptions SET disabled_at = NULL, disabled_reason = NULL, consecutive_failures = 0,
         start_at = CASE WHEN disabled_at IS NULL THEN start_at ELSE now() END,
         start_position = CASE WHEN disabled_at IS NULL THEN start_position ELSE p.start END,
         cursor_position = CASE WHEN disabled_at IS NULL THEN cursor_position ELSE GREATEST(cursor_position, p.start) END
       FROM (SELECT ${startPositionSql('now()')} AS start) p
       WHERE client_id = $1`,
      [clientId],
    );
    return rowCount === 1;
  }

  /** Sets the event types the client receives (null: all); false when there is no such client. */
  async chooseEventTypes(clientId: string, eventTypes: readonly WebhookEventType[] | null): Promise<boolean> {
    const { rowCount } = await this.pool.query(`UPDATE subscriptions SET event_types = $2 WHERE client_id = $1`, [
      clientId,
      eventTypes,
    ]);
    return rowCount === 1;
  }
}
