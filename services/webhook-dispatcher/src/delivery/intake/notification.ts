import {
  type EventOf,
  changeDeliveryOf,
  changeHeadersOf,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_PATHS,
  type WebhookEventType,
} from '@lx/contracts';

/** The events the dispatcher turns into webhooks. */
export type WebhookEvent = EventOf<WebhookEventType>;

/** What is sent for one event, stored once in the notification log however many clients receive it. */
export interface Notification {
  eventId: string;
  eventType: WebhookEventType;
  /** Path under the client's webhook URL. */
  path: string;
  /** The exact body bytes signed and sent. */
  body: string;
  /** Headers besides Content-Type and the signature headers (the OAF-100 X-Event-* of location events). */
  headers: Record<string, string>;
  correlationId?: string;
  /** The W3C trace context its deliveries continue (the intake's span for the event), when tracing is on. */
  traceParent?: string;
  occurredAt: string;
  /** The one client that receives it (an export's requester); absent: every subscriber that takes its type. */
  recipient?: string;
  /** The location or group it is about: one endpoint never has two messages of one of them in flight. */
  resourceId?: string;
}

/** Whether an event is one the dispatcher turns into webhooks. */
export const isWebhookEvent = (event: { type: string }): event is WebhookEvent =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(event.type);

/**
 * What is sent for an event and to whom. A location or group change goes to every subscriber of its type as the
 * OAF-100 body `{ "event": <envelope with the resource's version> }` with the X-Event-* headers, exactly as the
 * change feed describes it (`changeDeliveryOf`); an export outcome goes to the
 * client that asked for the export, its body exactly the spec's notification.
 */
export function notificationOf(event: WebhookEvent, version: number, correlationId: string | undefined): Notification {
  const common = {
    eventId: event.id,
    eventType: event.type,
    occurredAt: event.timestamp,
    ...(correlationId === undefined ? {} : { correlationId }),
  };
  if (event.type === 'EXPORT_COMPLETED' || event.type === 'EXPORT_FAILED') {
    return {
      ...common,
      path: WEBHOOK_PATHS.exportEvents,
      body: JSON.stringify(event.data.notification),
      headers: {},
      recipient: event.data.clientId,
    };
  }
  return {
    ...common,
    path: WEBHOOK_PATHS.locationEvents,
    body: JSON.stringify(changeDeliveryOf(event, version)),
    headers: changeHeadersOf(event, version),
    resourceId: event.data.id,
  };
}
