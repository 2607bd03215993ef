import { z } from 'zod';
import { errorCodeSchema } from '../errors/error-codes';
import { countSchema, httpUrlSchema, nonEmptyStringSchema, utcDateTimeSchema, uuidSchema } from '../primitives';
import { locationSchema } from './location';

/** Export file formats. */
export const EXPORT_FORMATS = ['json', 'csv'] as const;
/** json or csv. */
export const exportFormatSchema = z.enum(EXPORT_FORMATS);
/** json or csv. */
export type ExportFormat = z.infer<typeof exportFormatSchema>;

/** Content-Type of the downloaded file per format. */
export const EXPORT_CONTENT_TYPES = { json: 'application/json', csv: 'text/csv' } as const satisfies Record<
  ExportFormat,
  string
>;

/** Export request states; PENDING until generation succeeds or fails. */
export const EXPORT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
/** An export request state. */
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** Body of POST /locations/exports; without modifiedSince the export is full, with it only locations modified after it. */
export const exportRequestBodySchema = z
  .object({ format: exportFormatSchema, modifiedSince: utcDateTimeSchema.optional() })
  .strict();
/** Body of POST /locations/exports. */
export type ExportRequestBody = z.infer<typeof exportRequestBodySchema>;

/** 202 reply of POST /locations/exports. */
export const exportAcceptedSchema = z
  .object({ requestId: uuidSchema, status: z.literal('PENDING'), message: nonEmptyStringSchema })
  .strict();
/** 202 reply of POST /locations/exports. */
export type ExportAccepted = z.infer<typeof exportAcceptedSchema>;

const completedFields = {
  requestId: uuidSchema,
  status: z.literal('COMPLETED'),
  exportUrl: httpUrlSchema,
  downloadExpiresAt: utcDateTimeSchema,
  exportTimestamp: utcDateTimeSchema,
  totalCount: countSchema,
};

/** The COMPLETED export notification. */
export const exportCompletedNotificationSchema = z.object(completedFields).strict();
/** The FAILED export notification; error.code seen: EXPORT_GENERATION_FAILED. */
export const exportFailedNotificationSchema = z
  .object({
    requestId: uuidSchema,
    status: z.literal('FAILED'),
    error: z.object({ code: errorCodeSchema, message: nonEmptyStringSchema }).strict(),
  })
  .strict();

/** Body the operator POSTs to {rsp_webhook_url}/locations/exports/events when an export completes or fails. */
export const exportNotificationSchema = z.discriminatedUnion('status', [
  exportCompletedNotificationSchema,
  exportFailedNotificationSchema,
]);
/** Export completion or failure notification. */
export type ExportNotification = z.infer<typeof exportNotificationSchema>;

/**
 * Reply of GET /locations/exports/{id}. The download fields appear only when COMPLETED; the spec puts `error` only in
 * the FAILED notification, so a FAILED status reply carries requestId and status alone.
 */
export const exportStatusReplySchema = z.discriminatedUnion('status', [
  z.object({ requestId: uuidSchema, status: z.literal('PENDING') }).strict(),
  z.object(completedFields).strict(),
  z.object({ requestId: uuidSchema, status: z.literal('FAILED') }).strict(),
]);
/** Reply of GET /locations/exports/{id}. */
export type ExportStatusReply = z.infer<typeof exportStatusReplySchema>;

/** The downloaded file of a json export (OAF-100 file shape). */
export const jsonExportFileSchema = z
  .object({ exportTimestamp: utcDateTimeSchema, totalCount: countSchema, locations: z.array(locationSchema) })
  .strict();
/** The downloaded file of a json export. */
export type JsonExportFile = z.infer<typeof jsonExportFileSchema>;
