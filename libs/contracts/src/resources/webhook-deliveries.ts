import { z } from 'zod';
import { paginationSchema } from './groups';
import { countSchema, httpUrlSchema, nonEmptyStringSchema, utcDateTimeSchema, uuidSchema } from '../primitives';
import { CHANGE_EVENT_TYPES } from '../events/webhooks';

/**
 * A webhook delivery's state: PENDING (due or waiting for its next attempt), DELIVERED (2xx), FAILED (ended without
 * retry: 400, 410, an address the SSRF guard refused, or the endpoint disabled), DEAD (every attempt of the schedule
 * failed; WEBHOOK_DELIVERY_FAILED).
 */
export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'DEAD'] as const;
/** A webhook delivery's state. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The event types an RSP can receive by webhook, and choose among: the changes of locations and groups (to
 * `/locations/events`) and the outcomes of its exports (to `/locations/exports/events`).
 */
export const WEBHOOK_EVENT_TYPES = [...CHANGE_EVENT_TYPES, 'EXPORT_COMPLETED', 'EXPORT_FAILED'] as const;
/** An event type an RSP can receive by webhook. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** One attempt of a delivery. */
export const deliveryAttemptSchema = z
  .object({
    attempt: z.number().int().min(1),
    attemptedAt: utcDateTimeSchema,
    url: httpUrlSchema,
    statusCode: z.number().int().optional(),
    latencyMs: countSchema,
    /** The first KB of the reply body. */
    responseExcerpt: z.string().optional(),
    /** The transport failure (timeout, connection, TLS, refused address), or why the reply counts as failed. */
    error: z.string().optional(),
  })
  .strict();
/** One attempt of a delivery. */
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

/** A delivery: one event to one client, with the state of its attempts. Its id is the `webhook-id` header. */
export const deliverySchema = z
  .object({
    id: uuidSchema,
    clientId: nonEmptyStringSchema,
    eventId: uuidSchema,
    eventType: z.enum(WEBHOOK_EVENT_TYPES),
    status: z.enum(DELIVERY_STATUSES),
    attempts: countSchema,
    createdAt: utcDateTimeSchema,
    lastAttemptAt: utcDateTimeSchema.optional(),
    nextAttemptAt: utcDateTimeSchema.optional(),
    lastStatusCode: z.number().int().optional(),
    lastError: z.string().optional(),
    finishedAt: utcDateTimeSchema.optional(),
  })
  .strict();
/** A delivery. */
export type Delivery = z.infer<typeof deliverySchema>;

/** GET …/deliveries/{id}: the delivery with every attempt, oldest first. */
export const deliveryDetailSchema = deliverySchema.extend({ attemptLog: z.array(deliveryAttemptSchema) }).strict();
/** A delivery with its attempts. */
export type DeliveryDetail = z.infer<typeof deliveryDetailSchema>;

/** GET …/deliveries: newest first. */
export const deliveryListSchema = z
  .object({ deliveries: z.array(deliverySchema), pagination: paginationSchema })
  .strict();
/** A page of deliveries. */
export type DeliveryList = z.infer<typeof deliveryListSchema>;

/** Query parameters of the RSP's GET /webhooks/deliveries. */
export const DELIVERY_LIST_PARAMETERS = ['status', 'since', 'until', 'limit', 'offset'] as const;
/** Query parameters of the SRE's GET /admin/webhooks/deliveries: those and a client. */
export const ADMIN_DELIVERY_LIST_PARAMETERS = [...DELIVERY_LIST_PARAMETERS, 'clientId'] as const;

/** How an endpoint is doing: its latest attempts succeeded, failed, or it was disabled (410, or by an SRE). */
export const ENDPOINT_STATES = ['HEALTHY', 'FAILING', 'DISABLED'] as const;
/** An endpoint's state. */
export type EndpointState = (typeof ENDPOINT_STATES)[number];

/** A client's webhook endpoint as the dispatcher sees it. */
export const endpointSchema = z
  .object({
    clientId: nonEmptyStringSchema,
    webhookUrl: httpUrlSchema.optional(),
    /** The client is enabled in auth. */
    enabled: z.boolean(),
    state: z.enum(ENDPOINT_STATES),
    consecutiveFailures: countSchema,
    disabledAt: utcDateTimeSchema.optional(),
    disabledReason: z.string().optional(),
    /** The event types it receives; all when absent. */
    eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)).optional(),
    pendingDeliveries: countSchema,
  })
  .strict();
/** A client's webhook endpoint. */
export type Endpoint = z.infer<typeof endpointSchema>;

/** PUT /webhooks/subscription: the event types to receive (at least one); null receives all, now and in future. */
export const subscriptionUpdateSchema = z
  .object({ eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).nullable() })
  .strict();
/** Body of PUT /webhooks/subscription. */
export type SubscriptionUpdate = z.infer<typeof subscriptionUpdateSchema>;

/** POST /admin/webhooks/endpoints/{clientId}/redrive: every DEAD delivery of the client created at or after `since`. */
export const redriveRequestSchema = z.object({ since: utcDateTimeSchema }).strict();
/** Body of a client-wide redrive. */
export type RedriveRequest = z.infer<typeof redriveRequestSchema>;

/** Reply of a client-wide redrive. */
export const redriveReplySchema = z.object({ redriven: countSchema }).strict();
/** Reply of a client-wide redrive. */
export type RedriveReply = z.infer<typeof redriveReplySchema>;
