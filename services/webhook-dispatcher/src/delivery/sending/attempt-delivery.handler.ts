import { Inject, Injectable, Logger } from '@nestjs/common';
import { judgeAttempt, nextAttemptDelay, type Verdict } from '@lx/domain';
import {
  Clock,
  contextOfTraceParent,
  endSpan,
  RandomSource,
  signWebhook,
  SpanKind,
  tracerOf,
  withTraceHeaders,
} from '@lx/platform';
import { WEBHOOK_DISPATCHER_CONFIG, type WebhookDispatcherConfig } from '../../config/webhook-dispatcher.config';
import type { AttemptRecord, ClaimedDelivery } from '../infrastructure/delivery.repository';
import { DeliveryMetrics } from '../infrastructure/delivery-metrics';
import { WebhookSecrets } from '../infrastructure/webhook-secrets';
import { WebhookSender } from './webhook-sender';

const verdictLabel = (verdict: Verdict): string => (verdict.type === 'delivered' ? 'delivered' : verdict.reason);
const tracer = tracerOf('webhook-dispatcher');

/**
 * One attempt of one claimed delivery: signs it (Standard Webhooks; the previous secret too during the rotation
 * grace period), sends it to the client's current webhook URL, judges the reply by the spec's table, and returns
 * the attempt record with the delivery's next state: DELIVERED, PENDING with its next due time, FAILED (400, 410,
 * refused address), or DEAD when the schedule is used up. Each attempt is a CLIENT span continuing the trace of the
 * event it delivers, and the request carries it (`traceparent`), when tracing is on.
 */
@Injectable()
export class AttemptDeliveryHandler {
  private readonly logger = new Logger('WebhookDelivery');
  private readonly urls = new Map<string, URL>();

  constructor(
    private readonly sender: WebhookSender,
    private readonly secrets: WebhookSecrets,
    private readonly metrics: DeliveryMetrics,
    private readonly clock: Clock,
    private readonly random: RandomSource,
    @Inject(WEBHOOK_DISPATCHER_CONFIG) private readonly config: WebhookDispatcherConfig,
  ) {}

  async execute(delivery: ClaimedDelivery): Promise<AttemptRecord> {
    const attemptedAt = this.clock.now();
    const url = this.urlOf(delivery);
    const span = tracer.startSpan(
      `POST ${delivery.path}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': 'POST',
          'server.address': url.hostname,
          'url.path': url.pathname,
          'lx.client_id': delivery.clientId,
          'lx.delivery_id': delivery.id,
          'lx.attempt': delivery.attempt,
        },
      },
      contextOfTraceParent(delivery.traceParent),
    );
    const response = await this.sender.send({
      url,
      headers: withTraceHeaders(this.headers(delivery, attemptedAt), span),
      body: delivery.bytes ?? delivery.body,
    });
    // Retry-After counts from the reply, and so does the schedule: the next attempt is that long after this one ended.
    const endedAt = this.clock.now().getTime();
    const verdict = judgeAttempt(response.result, endedAt);
    const label = verdictLabel(verdict);
    if (response.result.kind === 'reply') span.setAttribute('http.response.status_code', response.result.status);
    endSpan(span, verdict.type === 'delivered' ? undefined : (response.error ?? label));
    this.metrics.attempts.inc({ result: label });
    this.metrics.attemptDuration.observe({ result: label }, response.latencyMs / 1000);
    const record: AttemptRecord = {
      deliveryId: delivery.id,
      clientId: delivery.clientId,
      attempt: delivery.attempt,
      attemptedAt,
      url: url.toString(),
      ...(response.result.kind === 'reply' ? { statusCode: response.result.status } : {}),
      latencyMs: response.latencyMs,
      ...(response.excerpt === undefined ? {} : { responseExcerpt: response.excerpt }),
      ...(response.error === undefined ? {} : { error: response.error }),
      status: 'DELIVERED',
    };
    const context = { clientId: delivery.clientId, deliveryId: delivery.id, eventId: delivery.eventId };
    const correlation = delivery.correlationId === null ? {} : { correlationId: delivery.correlationId };
    if (verdict.type === 'delivered') {
      this.metrics.deliveries.inc({ outcome: 'delivered' });
      return record;
    }
    if (verdict.type === 'failed') {
      this.metrics.deliveries.inc({ outcome: 'failed' });
      this.logger.warn({ msg: 'Webhook delivery failed, not retried', ...context, ...correlation, reason: label });
      if (verdict.reason === 'gone') {
        this.logger.warn({
          msg: 'Webhook endpoint disabled: it answered 410 Gone (a new webhook URL or POST /admin/webhooks/endpoints/{clientId}/enable restores it)',
          clientId: delivery.clientId,
          url: url.toString(),
        });
      }
      return {
        ...record,
        status: 'FAILED',
        error: record.error ?? `${label}: HTTP ${record.statusCode}`,
        ...(verdict.reason === 'gone' ? { disableEndpoint: `HTTP 410 Gone at ${attemptedAt.toISOString()}` } : {}),
      };
    }
    if (verdict.reason === 'unauthorized') {
      this.metrics.unauthorized.inc({ client_id: delivery.clientId });
      this.logger.warn({
        msg: 'Webhook endpoint answered 401: the RSP does not accept the credentials (check its webhook secret)',
        ...context,
        ...correlation,
      });
    }
    const attemptOfRun = delivery.attempt - delivery.scheduleStart;
    const delay = nextAttemptDelay(this.config.delivery.schedule, attemptOfRun, verdict, this.random.next());
    const error = record.error ?? `${label}: HTTP ${record.statusCode}`;
    if (delay === undefined) {
      this.metrics.deliveries.inc({ outcome: 'dead' });
      this.logger.warn({ msg: 'Webhook delivery DEAD after its last attempt', ...context, ...correlation, error });
      return { ...record, status: 'DEAD', error: `WEBHOOK_DELIVERY_FAILED: ${error}` };
    }
    return { ...record, status: 'PENDING', error, nextAttemptAt: new Date(endedAt + delay) };
  }

  /** The URL of a delivery's path under the client's webhook URL, parsed once per URL. */
  private urlOf(delivery: ClaimedDelivery): URL {
    const text = delivery.webhookUrl.replace(/\/+$/, '') + delivery.path;
    let url = this.urls.get(text);
    if (url === undefined) {
      if (this.urls.size >= 10_000) this.urls.clear();
      url = new URL(text);
      this.urls.set(text, url);
    }
    return url;
  }

  private headers(delivery: ClaimedDelivery, now: Date): Record<string, string> {
    const timestampSeconds = Math.floor(now.getTime() / 1000);
    const secrets = [this.secrets.open(delivery.secret.sealed, delivery.clientId, delivery.secret.version)];
    const previous = delivery.previousSecret;
    if (previous !== undefined && now.getTime() - previous.rotatedAt.getTime() < this.config.delivery.rotationGraceMs) {
      secrets.push(this.secrets.open(previous.sealed, delivery.clientId, previous.version));
    }
    return {
      'content-type': 'application/json',
      'user-agent': 'location-exchange-webhooks/1',
      ...delivery.headers,
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestampSeconds),
      'webhook-signature': signWebhook(
        { id: delivery.id, timestampSeconds, body: delivery.bytes ?? delivery.body },
        secrets,
      ),
    };
  }
}
