import { Inject, Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { checkOut, PG_POOL } from '@lx/platform';
import type { WebhookEventType } from '@lx/contracts';
import type { EndpointSubscription } from '../sending/endpoint-lane';
import { EndpointEventsPublisher } from './endpoint-events.publisher';

/** A delivery claimed for one attempt, with everything the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  clientId: string;
  eventId: string;
  eventType: string;
  /** Number of this attempt, from 1. */
  attempt: number;
  /** Attempts made before the current run of the retry schedule began (a redrive starts a new run). */
  scheduleStart: number;
  webhookUrl: string;
  path: string;
  body: string;
  /** The body's bytes when they were encoded already (a message read from the log). */
  bytes?: Buffer;
  headers: Record<string, string>;
  correlationId: string | null;
  /** The W3C trace context the attempt continues (the notification's), when there is one. */
  traceParent?: string | null;
  secret: { sealed: string; version: number };
  previousSecret?: { sealed: string; version: number; rotatedAt: Date };
}

/** The recorded result of one attempt and the delivery's state after it. */
export interface AttemptRecord {
  deliveryId: string;
  clientId: string;
  attempt: number;
  attemptedAt: Date;
  url: string;
  statusCode?: number;
  latencyMs: number;
  responseExcerpt?: string;
  error?: string;
  status: 'PENDING' | 'DELIVERED' | 'FAILED' | 'DEAD';
  /** When PENDING: when the next attempt is due. */
  nextAttemptAt?: Date;
  /** The endpoint answered 410 Gone: disable it. */
  disableEndpoint?: string;
  /**
   * The first attempt of a message read through the endpoint's cursor: it has no delivery row yet. Its failure
   * creates the row (with the derived id); its success writes nothing but, with `row` false, the endpoint's state.
   */
  first?: { eventId: string; row: boolean };
}

/** Where an endpoint's cursor stands, written with the records of the attempts it passed. */
export interface Checkpoint {
  clientId: string;
  epoch: number;
  position: number;
}

interface SubscriptionRow {
  client_id: string;
  endpoint_no: string;
  deliverable: boolean;
  webhook_url: string | null;
  event_types: WebhookEventType[] | null;
  start_position: string;
  start_at: Date | null;
  consecutive_failures: number;
  secret_sealed: string | null;
  secret_version: number | null;
  previous_secret_sealed: string | null;
  previous_secret_version: number | null;
  secret_rotated_at: Date | null;
}

interface ClaimedRow {
  id: string;
  client_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  schedule_start: number;
  webhook_url: string;
  path: string;
  body: string;
  headers: Record<string, string>;
  correlation_id: string | null;
  trace_parent: string | null;
  secret_sealed: string;
  secret_version: number;
  previous_secret_sealed: string | null;
  previous_secret_version: number | null;
  secret_rotated_at: Date | null;
}

/** A subscription that may receive deliveries now. */
const DELIVERABLE = `s.enabled AND s.webhook_url IS NOT NULL AND s.secret_sealed IS NOT NULL AND s.disabled_at IS NULL`;

const secretsOf = (row: {
  secret_sealed: string | null;
  secret_version: number | null;
  previous_secret_sealed: string | null;
  previous_secret_version: number | null;
  secret_rotated_at: Date | null;
}): Pick<ClaimedDelivery, 'previousSecret'> & { secret: ClaimedDelivery['secret'] | null } => ({
  secret:
    row.secret_sealed === null || row.secret_version === null
      ? null
      : { sealed: row.secret_sealed, version: row.secret_version },
  ...(row.previous_secret_sealed === null || row.previous_secret_version === null || row.secret_rotated_at === null
    ? {}
    : {
        previousSecret: {
          sealed: row.previous_secret_sealed,
          version: row.previous_secret_version,
          rotatedAt: row.secret_rotated_at,
        },
      }),
});

/**
 * The delivery records of messages that failed at least once (each attempt its own row), and the endpoints' cursors
 * and state.
 */
@Injectable()
export class DeliveryRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly endpointEvents: EndpointEventsPublisher,
  ) {}

  /**
   * Claims due PENDING deliveries of deliverable endpoints for one attempt each: at most `slots.get(client)` (or
   * `perEndpoint` for a client not in `slots`) per client and `limit` in all, oldest due first. A claim counts the
   * attempt and moves the delivery's due time `leaseMs` ahead, so another replica takes it over only when this one
   * never recorded the outcome (it crashed): the attempt is then repeated with the same webhook-id.
   */
  async claim(
    slots: ReadonlyMap<string, number>,
    perEndpoint: number,
    limit: number,
    leaseMs: number,
    owned: readonly string[],
  ): Promise<ClaimedDelivery[]> {
    const { rows } = await this.pool.query<ClaimedRow>(
      `WITH free AS (
         SELECT * FROM unnest($1::text[], $2::int[]) AS f(client_id, slots)
       ), picked AS (
         SELECT d.id
         FROM subscriptions s
         LEFT JOIN free f ON f.client_id = s.client_id
         CROSS JOIN LATERAL (
           SELECT d.id FROM deliveries d
           WHERE d.client_id = s.client_id AND d.status = 'PENDING' AND d.next_attempt_at <= now()
           ORDER BY d.next_attempt_at
           LIMIT COALESCE(f.slots, $3)
           FOR UPDATE SKIP LOCKED
         ) d
         WHERE ${DELIVERABLE} AND s.client_id = ANY ($6::text[])
         LIMIT $4
       )
       UPDATE deliveries d
       SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $5::double precision / 1000)
       FROM subscriptions s, notifications n
       -- An id array, not a join with picked: the planner cannot see how few rows picked holds and would hash-join
       -- the whole table (measured: 70 ms instead of 6 ms at 100,000 PENDING deliveries).
       WHERE d.id = ANY (ARRAY(SELECT id FROM picked)) AND s.client_id = d.client_id AND n.event_id = d.event_id
       RETURNING d.id, d.client_id, d.event_id, n.event_type, d.attempts, d.schedule_start, s.webhook_url, n.path, n.body, n.headers,
         n.correlation_id, n.trace_parent, s.secret_sealed, s.secret_version, s.previous_secret_sealed, s.previous_secret_version,
         s.secret_rotated_at`,
      [[...slots.keys()], [...slots.values()], perEndpoint, limit, leaseMs, owned],
    );
    return rows.map((row) => ({
      id: row.id,
      clientId: row.client_id,
      eventId: row.event_id,
      eventType: row.event_type,
      attempt: row.attempts,
      scheduleStart: row.schedule_start,
      webhookUrl: row.webhook_url,
      path: row.path,
      body: row.body,
      headers: row.headers,
      correlationId: row.correlation_id,
      traceParent: row.trace_parent,
      ...(secretsOf(row) as Pick<ClaimedDelivery, 'secret' | 'previousSecret'>),
    }));
  }

  /** Hands claimed deliveries back unattempted: due at once, the claim's attempt not counted. */
  async release(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query(
      `UPDATE deliveries SET attempts = attempts - 1, next_attempt_at = now()
       WHERE id = ANY($1::uuid[]) AND status = 'PENDING'`,
      [ids],
    );
  }

  /**
   * Records attempts and the state each leaves its delivery in, and moves endpoints' cursors past the messages these
   * records (and earlier ones) settle, in one transaction. A first attempt that failed creates its delivery row; an
   * outcome whose attempt is no longer the delivery's latest (its lease lapsed and another replica attempted again) is
   * stored as an attempt but does not change the delivery. Also keeps each endpoint's run of consecutive failures,
   * and disables an endpoint that answered 410, with a WEBHOOK_ENDPOINT_DISABLED event in the same transaction
   * (once: an endpoint already disabled is not announced again). A checkpoint only moves a cursor forward, and only
   * for the replica that holds the endpoint's current epoch.
   */
  async recordAttempts(
    records: readonly AttemptRecord[],
    checkpoints: readonly Checkpoint[] = [],
  ): Promise<{ fenced: string[] }> {
    if (records.length === 0 && checkpoints.length === 0) return { fenced: [] };
    let fenced: string[] = [];
    const { client, release } = await checkOut(this.pool);
    try {
      await client.query('BEGIN');
      const gone = records.filter((record) => record.disableEndpoint !== undefined);
      const { rows } =
        gone.length === 0
          ? { rows: [] }
          : await client.query<{ client_id: string }>(
              `SELECT client_id FROM subscriptions WHERE client_id = ANY($1::text[]) AND disabled_at IS NULL FOR UPDATE`,
              [[...new Set(gone.map((record) => record.clientId))]],
            );
      if (records.length > 0) await this.writeAttempts(client, records);
      if (checkpoints.length > 0) {
        // Returns the endpoints another replica took meanwhile (a newer epoch): this one must let them go.
        const { rows: stale } = await client.query<{ client_id: string }>(
          `WITH c AS (
             SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS c(client_id, epoch, position)
           ), moved AS (
             UPDATE subscriptions s SET cursor_position = c.position FROM c
             WHERE s.client_id = c.client_id AND s.lane_epoch = c.epoch AND s.cursor_position < c.position
           )
           SELECT c.client_id FROM c JOIN subscriptions s ON s.client_id = c.client_id WHERE s.lane_epoch <> c.epoch`,
          [checkpoints.map((c) => c.clientId), checkpoints.map((c) => c.epoch), checkpoints.map((c) => c.position)],
        );
        fenced = stale.map((row) => row.client_id);
      }
      if (rows.length > 0) {
        // The endpoints this batch disabled, as stored (disabled_at is the batch's latest attempt of the client).
        const { rows: disabled } = await client.query<{
          client_id: string;
          disabled_at: Date;
          disabled_reason: string;
        }>(`SELECT client_id, disabled_at, disabled_reason FROM subscriptions WHERE client_id = ANY($1::text[])`, [
          rows.map((row) => row.client_id),
        ]);
        await this.endpointEvents.append(
          client,
          disabled.map((row) => {
            const record = gone.find((candidate) => candidate.clientId === row.client_id)!;
            return {
              clientId: row.client_id,
              url: record.url,
              reason: row.disabled_reason,
              disabledAt: row.disabled_at.toISOString(),
              deliveryId: record.deliveryId,
            };
          }),
        );
      }
      await client.query('COMMIT');
      release();
      return { fenced };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      release(error as Error);
      throw error;
    }
  }

  private async writeAttempts(executor: Pool | PoolClient, records: readonly AttemptRecord[]): Promise<void> {
    const column = <T>(pick: (record: AttemptRecord) => T) => records.map(pick);
    await executor.query(
      `WITH o AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::text[], $5::int[], $6::int[], $7::text[],
           $8::text[], $9::text[], $10::timestamptz[], $11::text[], $12::text[], $13::uuid[], $14::boolean[])
           AS o(delivery_id, attempt, attempted_at, url, status_code, latency_ms, response_excerpt, error, status,
             next_attempt_at, client_id, disable_reason, first_event_id, with_row)
       ), firsts AS (
         INSERT INTO deliveries (id, event_id, client_id, status, attempts, schedule_start, next_attempt_at,
           last_attempt_at, last_status_code, last_error, created_at, finished_at)
         SELECT delivery_id, first_event_id, client_id, status, 1, 0, next_attempt_at, attempted_at, status_code, error,
           attempted_at, CASE WHEN status = 'PENDING' THEN NULL ELSE attempted_at END
         -- A message purged from the log meanwhile (its endpoint was disabled for longer than the log keeps it) leaves
         -- no record, rather than a batch that can never be written.
         FROM o JOIN notifications n ON n.event_id = o.first_event_id
         WHERE with_row
         ON CONFLICT (id) DO NOTHING
       ), attempts AS (
         INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, url, status_code, latency_ms,
           response_excerpt, error)
         SELECT delivery_id, attempt, attempted_at, url, status_code, latency_ms, response_excerpt, error FROM o
         WHERE with_row
           AND (first_event_id IS NULL OR EXISTS (SELECT 1 FROM notifications n WHERE n.event_id = o.first_event_id))
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       ), endpoints AS (
         -- A 400 (FAILED without a disabling) is the message's outcome, not a failure of the endpoint.
         SELECT client_id, bool_or(status = 'DELIVERED') AS delivered,
           count(*) FILTER (WHERE status IN ('PENDING', 'DEAD') OR disable_reason IS NOT NULL) AS failures,
           max(disable_reason) AS disable_reason, max(attempted_at) AS at
         FROM o GROUP BY client_id
       ), endpoint_state AS (
         UPDATE subscriptions s
         SET consecutive_failures = CASE WHEN e.delivered THEN 0 ELSE s.consecutive_failures + e.failures END,
           -- An endpoint already disabled keeps the time and reason it was disabled with.
           disabled_at = COALESCE(s.disabled_at, CASE WHEN e.disable_reason IS NULL THEN NULL ELSE e.at END),
           disabled_reason = CASE WHEN s.disabled_at IS NULL THEN e.disable_reason ELSE s.disabled_reason END
         FROM endpoints e
         -- Only where the state changes: a healthy endpoint's row is not rewritten by every batch.
         WHERE s.client_id = e.client_id AND (e.disable_reason IS NOT NULL OR s.consecutive_failures
           IS DISTINCT FROM CASE WHEN e.delivered THEN 0 ELSE s.consecutive_failures + e.failures END)
       )
       UPDATE deliveries d
       SET status = o.status, next_attempt_at = o.next_attempt_at, last_attempt_at = o.attempted_at,
         last_status_code = o.status_code, last_error = o.error,
         finished_at = CASE WHEN o.status = 'PENDING' THEN NULL ELSE o.attempted_at END
       FROM o
       WHERE o.first_event_id IS NULL AND d.id = o.delivery_id AND d.attempts = o.attempt AND d.status = 'PENDING'`,
      [
        column((r) => r.deliveryId),
        column((r) => r.attempt),
        column((r) => r.attemptedAt),
        column((r) => r.url),
        column((r) => r.statusCode ?? null),
        column((r) => r.latencyMs),
        column((r) => r.responseExcerpt ?? null),
        column((r) => r.error ?? null),
        column((r) => r.status),
        column((r) => r.nextAttemptAt ?? null),
        column((r) => r.clientId),
        column((r) => r.disableEndpoint ?? null),
        column((r) => r.first?.eventId ?? null),
        column((r) => r.first?.row ?? true),
      ],
    );
  }

  /**
   * Ends the due PENDING deliveries of endpoints that cannot receive anything now (client disabled, webhook URL
   * removed, endpoint disabled after 410) as FAILED with ENDPOINT_DISABLED; an SRE or the RSP may redrive them once
   * the endpoint works again. Returns how many.
   */
  async failUndeliverable(): Promise<number> {
    const { rowCount } = await this.pool.query(
      `UPDATE deliveries d
       SET status = 'FAILED', finished_at = now(), next_attempt_at = NULL,
         last_error = 'ENDPOINT_DISABLED: ' || CASE
           WHEN NOT s.enabled THEN 'the client is disabled'
           WHEN s.webhook_url IS NULL THEN 'the client has no webhook URL'
           WHEN s.disabled_at IS NOT NULL THEN 'the endpoint was disabled: ' || coalesce(s.disabled_reason, '')
           ELSE 'the client has no webhook secret' END
       FROM subscriptions s
       WHERE d.client_id = s.client_id AND d.status = 'PENDING' AND d.next_attempt_at <= now() AND NOT (${DELIVERABLE})`,
    );
    return rowCount ?? 0;
  }

  /**
   * Deletes, in bounded batches, the records of deliveries that ended more than `recordRetentionMs` ago (and their
   * attempts), then the log's messages older than `logRetentionMs` that every deliverable endpoint's cursor has passed
   * and no remaining record refers to. Returns how many of each went.
   */
  async purge(recordRetentionMs: number, logRetentionMs: number): Promise<{ records: number; messages: number }> {
    const { rows: ended } = await this.pool.query<{ count: string }>(
      `WITH old AS (
         SELECT id FROM deliveries
         WHERE status <> 'PENDING' AND finished_at < now() - make_interval(secs => $1::double precision / 1000)
         LIMIT 10000
       ), attempts AS (
         DELETE FROM delivery_attempts a USING old WHERE a.delivery_id = old.id
       ), gone AS (
         DELETE FROM deliveries d USING old WHERE d.id = old.id RETURNING 1
       )
       SELECT count(*) FROM gone`,
      [recordRetentionMs],
    );
    const { rowCount } = await this.pool.query(
      `DELETE FROM notifications n
       WHERE n.position IN (
         SELECT o.position FROM notifications o
         WHERE o.created_at < now() - make_interval(secs => $1::double precision / 1000)
           AND o.position <= coalesce((SELECT min(s.cursor_position) FROM subscriptions s WHERE ${DELIVERABLE}),
             (SELECT max(position) FROM notifications))
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = o.event_id)
         ORDER BY o.position LIMIT 10000)`,
      [logRetentionMs],
    );
    return { records: Number(ended[0]?.count ?? 0), messages: rowCount ?? 0 };
  }

  /** Every subscription, as the dispatcher serves it. */
  async subscriptions(): Promise<EndpointSubscription[]> {
    const { rows } = await this.pool.query<SubscriptionRow>(
      `SELECT s.client_id, s.endpoint_no, ${DELIVERABLE} AS deliverable, s.webhook_url, s.event_types,
         s.start_position, s.start_at, s.consecutive_failures, s.secret_sealed, s.secret_version,
         s.previous_secret_sealed, s.previous_secret_version, s.secret_rotated_at
       FROM subscriptions s ORDER BY s.endpoint_no`,
    );
    return rows.map((row) => ({
      clientId: row.client_id,
      endpointNo: Number(row.endpoint_no),
      deliverable: row.deliverable,
      webhookUrl: row.webhook_url,
      eventTypes: row.event_types,
      startPosition: Number(row.start_position),
      startAtMs: row.start_at?.getTime() ?? 0,
      consecutiveFailures: row.consecutive_failures,
      ...secretsOf(row),
    }));
  }

  /** A replica takes the endpoint: a new epoch fences the previous holder's checkpoints; returns the epoch and cursor. */
  async takeEndpoint(clientId: string): Promise<{ epoch: number; cursor: number } | undefined> {
    const { rows } = await this.pool.query<{ lane_epoch: string; cursor_position: string }>(
      `UPDATE subscriptions SET lane_epoch = lane_epoch + 1 WHERE client_id = $1 RETURNING lane_epoch, cursor_position`,
      [clientId],
    );
    const [row] = rows;
    return row === undefined ? undefined : { epoch: Number(row.lane_epoch), cursor: Number(row.cursor_position) };
  }

  /** Of these clients, those with deliveries waiting for a retry. */
  async withPendingRetries(clientIds: readonly string[]): Promise<Set<string>> {
    if (clientIds.length === 0) return new Set();
    const { rows } = await this.pool.query<{ client_id: string }>(
      `SELECT DISTINCT client_id FROM deliveries WHERE client_id = ANY($1::text[]) AND status = 'PENDING'`,
      [clientIds],
    );
    return new Set(rows.map((row) => row.client_id));
  }

  /**
   * What waits: deliveries waiting for a retry, messages behind the cursors of deliverable endpoints, the age of the
   * oldest of either, and endpoints with failures since their last success.
   */
  async summary(): Promise<{
    pending: number;
    backlog: number;
    oldestPendingAgeSeconds: number;
    failingEndpoints: number;
  }> {
    const { rows } = await this.pool.query<{
      pending: string;
      backlog: string;
      oldest_retry: number | null;
      oldest_unsent: number | null;
      failing: string;
    }>(
      `WITH head AS (SELECT coalesce(max(position), 0) AS head FROM notifications)
       SELECT (SELECT count(*) FROM deliveries WHERE status = 'PENDING') AS pending,
         (SELECT coalesce(sum(GREATEST(head.head - s.cursor_position, 0)), 0) FROM subscriptions s, head
           WHERE ${DELIVERABLE}) AS backlog,
         (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM deliveries WHERE status = 'PENDING')
           AS oldest_retry,
         (SELECT extract(epoch FROM now() - min(n.created_at))::float8 FROM subscriptions s
           CROSS JOIN LATERAL (SELECT created_at FROM notifications WHERE position > s.cursor_position
             ORDER BY position LIMIT 1) n
           WHERE ${DELIVERABLE}) AS oldest_unsent,
         (SELECT count(*) FROM subscriptions WHERE consecutive_failures > 0 OR disabled_at IS NOT NULL) AS failing`,
    );
    const [summary] = rows as [(typeof rows)[number]];
    return {
      pending: Number(summary.pending),
      backlog: Number(summary.backlog),
      oldestPendingAgeSeconds: Math.max(summary.oldest_retry ?? 0, summary.oldest_unsent ?? 0),
      failingEndpoints: Number(summary.failing),
    };
  }
}
