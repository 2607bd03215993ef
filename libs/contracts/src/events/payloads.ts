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

/**
 * data of every CLIENT_* event: the full client as the webhook dispatcher needs it (client.events.v1 is compacted, so
 * each event must stand alone). `webhookSecret` is the HMAC key for signing deliveries, present for RSP clients only;
 * it is not the OAuth client secret, which auth keeps only hashed and never publishes.
 */
export const clientDataSchema = z
  .object({
    clientId: nonEmptyStringSchema,
    name: nonEmptyStringSchema,
    kind: clientKindSchema,
    scopes: z.array(nonEmptyStringSchema),
    enabled: z.boolean(),
    webhookUrl: httpUrlSchema.optional(),
    webhookSecret: nonEmptyStringSchema.optional(),
  })
  .strict();
/** data of every CLIENT_* event. */
export type ClientData = z.infer<typeof clientDataSchema>;
