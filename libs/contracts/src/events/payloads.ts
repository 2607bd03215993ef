import { z } from 'zod';
import { clientKindSchema } from '../auth/clients';
import { httpUrlSchema, nonEmptyStringSchema, utcDateTimeSchema, uuidSchema } from '../primitives';
import {
  exportCompletedNotificationSchema,
  exportFailedNotificationSchema,
  exportFormatSchema,
} from '../resources/exports';

/** data of EXPORT_REQUESTED: the accepted request and the client to notify. */
export const exportRequestedDataSchema = z
  .object({
    requestId: uuidSchema,
    clientId: nonEmptyStringSchema,
    format: exportFormatSchema,
    modifiedSince: utcDateTimeSchema.optional(),
  })
  .strict();
/** data of EXPORT_REQUESTED. */
export type ExportRequestedData = z.infer<typeof exportRequestedDataSchema>;

/** data of EXPORT_COMPLETED: the client to notify and the exact notification body it receives. */
export const exportCompletedDataSchema = z
  .object({ clientId: nonEmptyStringSchema, notification: exportCompletedNotificationSchema })
  .strict();
/** data of EXPORT_COMPLETED. */
export type ExportCompletedData = z.infer<typeof exportCompletedDataSchema>;

/** data of EXPORT_FAILED: the client to notify and the exact notification body it receives. */
export const exportFailedDataSchema = z
  .object({ clientId: nonEmptyStringSchema, notification: exportFailedNotificationSchema })
  .strict();
/** data of EXPORT_FAILED. */
export type ExportFailedData = z.infer<typeof exportFailedDataSchema>;

/** Standard base64 with padding, as Node writes it: the only form a sealed value is accepted in. */
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * data of every CLIENT_* event: the full client as the webhook dispatcher needs it (client.events.v1 is compacted, so
 * each event must stand alone). The client's version is not in data but in the `lx-aggregate-version` header.
 *
 * `webhookSecretSealed` (RSP clients only) is the HMAC key for signing deliveries, never in clear: sealed with
 * AES-256-GCM under WEBHOOK_SECRET_TRANSPORT_KEY, which only auth and the webhook dispatcher hold, bound as additional
 * data to this client id and the event's version, in standard base64 (format and the opening code:
 * `WebhookSecretTransport` of `@lx/platform`). A reader of the topic without the key can neither read it nor move it
 * into another client's or another version's event. The OAuth client secret is never published: auth keeps it only
 * hashed.
 */
export const clientDataSchema = z
  .object({
    clientId: nonEmptyStringSchema,
    name: nonEmptyStringSchema,
    kind: clientKindSchema,
    scopes: z.array(nonEmptyStringSchema),
    enabled: z.boolean(),
    webhookUrl: httpUrlSchema.optional(),
    webhookSecretSealed: z.string().regex(CANONICAL_BASE64).optional(),
  })
  .strict();
/** data of every CLIENT_* event. */
export type ClientData = z.infer<typeof clientDataSchema>;

/**
 * data of WEBHOOK_ENDPOINT_DISABLED: an RSP's webhook endpoint answered 410 Gone, so the dispatcher stopped sending to
 * it (its due deliveries end FAILED with ENDPOINT_DISABLED) until its webhook URL changes or an SRE enables it again.
 */
export const webhookEndpointDisabledDataSchema = z
  .object({
    clientId: nonEmptyStringSchema,
    /** The URL that answered 410. */
    url: httpUrlSchema,
    reason: nonEmptyStringSchema,
    disabledAt: utcDateTimeSchema,
  })
  .strict();
/** data of WEBHOOK_ENDPOINT_DISABLED. */
export type WebhookEndpointDisabledData = z.infer<typeof webhookEndpointDisabledDataSchema>;
