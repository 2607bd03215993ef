// The webhooks: the requests the operator sends to an RSP's webhook endpoint, which the RSP implements.
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { CHANGE_EVENT_TYPES, LOCATION_EVENT_HEADERS } from '../../events/webhooks';
import { utcDateTimeSchema, uuidSchema } from '../../primitives';
import * as examples from '../examples';
import { z } from '../extend-zod';
import { SCHEMAS } from './schemas';

/** Headers every webhook request carries: Standard Webhooks signing. */
const signatureHeaders = {
  'webhook-id': uuidSchema.openapi({ description: 'The delivery id: the same on every retry of one delivery.' }),
  'webhook-timestamp': z
    .string()
    .regex(/^\d+$/)
    .openapi({ description: 'Unix seconds when this attempt was signed; refuse old ones (replays).' }),
  'webhook-signature': z.string().openapi({
    description:
      '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` keyed with the client’s `whsec_` ' +
      'secret (Standard Webhooks); after a rotation, one signature per secret, space-separated, for the grace period.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
};

const WEBHOOK_REPLIES = {
  200: { description: 'Received (any 2xx is).' },
  202: { description: 'Received (any 2xx is).' },
  400: { description: 'Refused: the delivery fails and is not retried.' },
  410: { description: 'Gone: the endpoint is disabled until an operator enables it.' },
  429: { description: 'Retried later, not before Retry-After.' },
  '4XX': {
    description: 'Any other 4xx (401 is counted as a credentials problem), or a 3xx (never followed): retried.',
  },
  '5XX': {
    description:
      'Any 5xx, a timeout or a connection error: retried with exponential backoff and jitter (503: not before ' +
      'Retry-After).',
  },
};

/** The tag of the webhooks: apart from the operations', since generators make one class per tag. */
export const WEBHOOK_TAG = 'Webhook events';

/** The requests an RSP's webhook endpoint receives (paths under the client's webhook URL). */
export const WEBHOOKS: RouteConfig[] = [
  {
    method: 'post',
    path: 'exportNotification',
    operationId: 'exportNotification',
    summary: 'POST {webhookUrl}/locations/exports/events: an export finished (COMPLETED) or failed (FAILED)',
    tags: [WEBHOOK_TAG],
    security: [],
    request: {
      headers: z.object(signatureHeaders),
      body: {
        content: {
          'application/json': { schema: SCHEMAS.ExportNotification, example: examples.exampleExportNotification },
        },
      },
    },
    responses: WEBHOOK_REPLIES,
  },
  {
    method: 'post',
    path: 'locationEvent',
    operationId: 'locationEvent',
    summary:
      'POST {webhookUrl}/locations/events: a location was created or changed (OAF-100), or a group was created, changed or deleted',
    tags: [WEBHOOK_TAG],
    security: [],
    request: {
      headers: z.object({
        ...signatureHeaders,
        [LOCATION_EVENT_HEADERS.eventId]: uuidSchema.openapi({ description: 'The event id; deduplicate on it.' }),
        [LOCATION_EVENT_HEADERS.eventType]: z.enum(CHANGE_EVENT_TYPES),
        [LOCATION_EVENT_HEADERS.eventTimestamp]: utcDateTimeSchema,
        [LOCATION_EVENT_HEADERS.eventSequence]: z
          .string()
          .regex(/^[1-9][0-9]*$/)
          .openapi({ description: "The location's or group's version after the event (the body's event.version)." }),
      }),
      body: {
        content: { 'application/json': { schema: SCHEMAS.LocationEvent, example: examples.exampleLocationEvent } },
      },
    },
    responses: WEBHOOK_REPLIES,
  },
];
