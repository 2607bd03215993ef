import {
  type EventOf,
  LOCATION_EVENT_HEADERS,
  type LocationEventDelivery,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_PATHS,
  type WebhookEventType,
} from '@lx/contracts';
import type { Notification, Recipients } from '../infrastructure/delivery.repository';

/** The events the dispatcher turns into webhooks. */
export type WebhookEvent = EventOf<WebhookEventType>;

/** Whether an event is one the dispatcher turns into webhooks. */
export const isWebhookEvent = (event: { type: string }): event is WebhookEvent =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(event.type);

/**
 * What is sent for an event and to whom. A location event goes to every subscriber as the OAF-100 body
 * `{ "event": <envelope> }` with the X-Event-* headers; an export outcome goes to the client that asked for the
 * export, its body exactly the spec's notification.
 */
export function notificationOf(
  event: WebhookEvent,
  correlationId: string | undefined,
): { notification: Notification; recipients: Recipients } {
  const common = {
    eventId: event.id,
    eventType: event.type,
    occurredAt: event.timestamp,
    ...(correlationId === undefined ? {} : { correlationId }),
  };
  if (event.type === 'EXPORT_COMPLETED' || event.type === 'EXPORT_FAILED') {
    return {
      notification: {
        ...common,
        path: WEBHOOK_PATHS.exportEvents,
        body: JSON.stringify(event.data.notification),
        headers: {},
      },
      recipients: { clientId: event.data.clientId },
    };
  }
  const body: LocationEventDelivery = { event };
  return {
    notification: {
      ...common,
      path: WEBHOOK_PATHS.locationEvents,
      body: JSON.stringify(body),
      headers: {
        [LOCATION_EVENT_HEADERS.eventId]: event.id,
        [LOCATION_EVENT_HEADERS.eventType]: event.type,
        [LOCATION_EVENT_HEADERS.eventTimestamp]: event.timestamp,
      },
    },
    recipients: 'subscribers',
  };
}
