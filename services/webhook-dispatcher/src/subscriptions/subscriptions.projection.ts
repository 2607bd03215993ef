import { Injectable } from '@nestjs/common';
import { type EventOf, type EventType, TOPICS, type TopicName } from '@lx/contracts';
import {
  latestPerAggregate,
  PermanentProjectionError,
  type ProjectedEvent,
  type Projection,
  type ProjectionTransaction,
} from '@lx/messaging';
import { startPositionSql } from '../delivery/infrastructure/notification-log.repository';
import { WebhookSecrets } from '../delivery/infrastructure/webhook-secrets';

type ClientEvent = EventOf<'CLIENT_REGISTERED' | 'CLIENT_UPDATED' | 'CLIENT_SECRET_ROTATED' | 'CLIENT_DISABLED'>;

interface StoredSubscription {
  client_id: string;
  version: number;
  enabled: boolean;
  webhook_url: string | null;
  secret_sealed: string | null;
  secret_version: number | null;
  previous_secret_sealed: string | null;
  previous_secret_version: number | null;
  secret_rotated_at: Date | null;
  consecutive_failures: number;
  disabled_at: Date | null;
  disabled_reason: string | null;
}

/**
 * Keeps one subscription per client from the CLIENT_* events of auth: whether it is enabled, its webhook URL and its
 * signing secret, still sealed as the event carried it (bound to the client and the event's version; only this
 * service and auth hold the key). When the secret changes, the former one is kept with the time of the change, so
 * both sign during the rotation grace period. A new webhook URL clears the endpoint's failure state. An endpoint that
 * starts receiving (registered, enabled again, given a URL) starts its cursor at the event's time: it receives the
 * events that happen from then on. Idempotent by client version: an event not newer than the stored version changes
 * nothing.
 */
@Injectable()
export class SubscriptionsProjection implements Projection {
  readonly name = 'webhook-subscriptions';
  readonly topics: readonly TopicName[] = [TOPICS.clientEvents.name];
  readonly eventTypes: readonly EventType[] = [
    'CLIENT_REGISTERED',
    'CLIENT_UPDATED',
    'CLIENT_SECRET_ROTATED',
    'CLIENT_DISABLED',
  ];

  constructor(private readonly secrets: WebhookSecrets) {}

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    const latest = latestPerAggregate(events, (projected) => (projected.event as ClientEvent).data.clientId);
    const { rows } = await transaction.query<StoredSubscription>(
      `SELECT * FROM subscriptions WHERE client_id = ANY($1::text[]) FOR UPDATE`,
      [latest.map((projected) => (projected.event as ClientEvent).data.clientId)],
    );
    const stored = new Map(rows.map((row) => [row.client_id, row]));
    for (const projected of latest) {
      const event = projected.event as ClientEvent;
      const before = stored.get(event.data.clientId);
      if (before !== undefined && before.version >= projected.version) continue;
      await this.upsert(transaction, event, projected.version, before);
    }
  }

  private async upsert(
    transaction: ProjectionTransaction,
    event: ClientEvent,
    version: number,
    before: StoredSubscription | undefined,
  ): Promise<void> {
    const { clientId, enabled, webhookUrl, webhookSecretSealed } = event.data;
    const secret = webhookSecretSealed === undefined ? undefined : this.open(webhookSecretSealed, clientId, version);
    const formerSecret =
      before?.secret_sealed == null || before.secret_version === null
        ? undefined
        : this.secrets.open(before.secret_sealed, clientId, before.secret_version);
    const rotated = secret !== undefined && formerSecret !== undefined && formerSecret !== secret;
    const previous = rotated
      ? { sealed: before!.secret_sealed, version: before!.secret_version, at: new Date(event.timestamp) }
      : {
          sealed: before?.previous_secret_sealed ?? null,
          version: before?.previous_secret_version ?? null,
          at: before?.secret_rotated_at ?? null,
        };
    const urlChanged = (before?.webhook_url ?? null) !== (webhookUrl ?? null);
    const disabledAt = urlChanged ? null : (before?.disabled_at ?? null);
    const deliverableBefore =
      before !== undefined &&
      before.enabled &&
      before.webhook_url !== null &&
      before.secret_sealed !== null &&
      before.disabled_at === null;
    const deliverable = enabled && webhookUrl !== undefined && webhookSecretSealed !== undefined && disabledAt === null;
    // An endpoint that starts receiving (new, enabled again, a URL again) gets the events from now on: its cursor
    // starts at this event's time.
    const restart = deliverable && !deliverableBefore;
    await transaction.query(
      `INSERT INTO subscriptions (client_id, version, enabled, webhook_url, secret_sealed, secret_version,
         previous_secret_sealed, previous_secret_version, secret_rotated_at, consecutive_failures, disabled_at,
         disabled_reason, updated_at, start_at, start_position, cursor_position)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, p.start, p.start
       FROM (SELECT ${startPositionSql('$13::timestamptz')} AS start) p
       ON CONFLICT (client_id) DO UPDATE SET version = EXCLUDED.version, enabled = EXCLUDED.enabled,
         start_at = CASE WHEN $14 THEN EXCLUDED.start_at ELSE subscriptions.start_at END,
         start_position = CASE WHEN $14 THEN EXCLUDED.start_position ELSE subscriptions.start_position END,
         cursor_position = CASE WHEN $14 THEN GREATEST(subscriptions.cursor_position, EXCLUDED.cursor_position)
           ELSE subscriptions.cursor_position END,
         webhook_url = EXCLUDED.webhook_url, secret_sealed = EXCLUDED.secret_sealed,
         secret_version = EXCLUDED.secret_version, previous_secret_sealed = EXCLUDED.previous_secret_sealed,
         previous_secret_version = EXCLUDED.previous_secret_version, secret_rotated_at = EXCLUDED.secret_rotated_at,
         consecutive_failures = EXCLUDED.consecutive_failures, disabled_at = EXCLUDED.disabled_at,
         disabled_reason = EXCLUDED.disabled_reason, updated_at = EXCLUDED.updated_at
       WHERE subscriptions.version < EXCLUDED.version`,
      [
        clientId,
        version,
        enabled,
        webhookUrl ?? null,
        webhookSecretSealed ?? null,
        webhookSecretSealed === undefined ? null : version,
        previous.sealed,
        previous.version,
        previous.at,
        urlChanged ? 0 : (before?.consecutive_failures ?? 0),
        disabledAt,
        urlChanged ? null : (before?.disabled_reason ?? null),
        event.timestamp,
        restart,
      ],
    );
  }

  private open(sealed: string, clientId: string, version: number): string {
    try {
      return this.secrets.open(sealed, clientId, version);
    } catch (error) {
      // Sealed under another key or altered: no retry can open it. Dead-lettered for an SRE (check
      // WEBHOOK_SECRET_TRANSPORT_KEY against auth's, then redrive).
      throw new PermanentProjectionError(
        `the webhook secret of client ${clientId} v${version} does not open: ${(error as Error).message}`,
      );
    }
  }
}
