import { z } from 'zod';
import { errorCodeSchema } from '../errors/error-codes';
import { countSchema, httpUrlSchema, nonEmptyStringSchema, utcDateTimeSchema, uuidSchema } from '../primitives';
import { addressGroupListItemSchema, locationGroupListItemSchema, paginationSchema } from './groups';
import { locationSchema } from './location';

/** Export file formats. */
export const EXPORT_FORMATS = ['json', 'csv'] as const;
/** json or csv. */
export const exportFormatSchema = z.enum(EXPORT_FORMATS);
/** json or csv. */
export type ExportFormat = z.infer<typeof exportFormatSchema>;

/** Content-Type of the downloaded file per format. */
export const EXPORT_CONTENT_TYPES = {
  json: 'application/json',
  csv: 'text/csv; charset=utf-8',
} as const satisfies Record<ExportFormat, string>;

/** Export request states; PENDING until generation succeeds or fails. */
export const EXPORT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
/** An export request state. */
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/**
 * `includeVersions` of an export request (json only; default false): every location and group item of the file ends
 * with its read-model version, so a copy loaded from the file can apply later changes by version alone.
 */
const includeVersionsSchema = z
  .boolean()
  .describe(
    'json only (default false): each location, location group and address group of the file carries its version ' +
      '(the ETag of GET /locations/{id}, the event.version of webhooks and the change feed) as its last key, ' +
      '"version". A copy loaded from such a file applies later changes by version only. With format csv: 400.',
  );

/**
 * `spreadsheetSafe` of an export request (csv only; default false): the file is meant to be opened in a spreadsheet
 * rather than loaded into a copy, so every cell a spreadsheet would run as a formula is defused (see
 * SPREADSHEET_TRIGGERS in location-csv.ts and docs/exports.md). The default file stays the exact copy.
 */
const spreadsheetSafeSchema = z
  .boolean()
  .describe(
    'csv only (default false): a file for spreadsheets rather than for a copy. Every cell that begins with =, +, -, ' +
      "@, a tab or a carriage return and is not a number gets a leading apostrophe ('), so a spreadsheet shows it as " +
      'text instead of running it as a formula (OWASP "CSV injection"). Such a file is no longer an exact copy of ' +
      'the locations: load copies from the default file. With format json: 400.',
  );

/**
 * Body of POST /locations/exports; without modifiedSince the export is full, with it only locations modified after it.
 * `filters.locationGroupId` (from the spec's usage sketch of location groups) exports only the members of one group.
 * `includeVersions` (json only) adds each row's version to the file; the domain refuses it with csv.
 * `spreadsheetSafe` (csv only) defuses formula cells; the domain refuses it with json.
 */
export const exportRequestBodySchema = z
  .object({
    format: exportFormatSchema,
    modifiedSince: utcDateTimeSchema.optional(),
    filters: z.object({ locationGroupId: uuidSchema.optional() }).strict().optional(),
    includeVersions: includeVersionsSchema.optional(),
    spreadsheetSafe: spreadsheetSafeSchema.optional(),
  })
  .strict();
/** Body of POST /locations/exports. */
export type ExportRequestBody = z.infer<typeof exportRequestBodySchema>;

/** Request header that makes POST /locations/exports safe to repeat: same key and body within 24 h, same reply. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

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
 * Fields of the status reply beyond the spec's, documented as additive: what was asked for, progress while PENDING,
 * the error when FAILED, and the file's checksum and size when COMPLETED.
 */
const requestFields = {
  requestId: uuidSchema,
  format: exportFormatSchema,
  modifiedSince: utcDateTimeSchema.optional(),
  filters: z.object({ locationGroupId: uuidSchema.optional() }).strict().optional(),
  /** Present (true) only when the request asked for versions. */
  includeVersions: z.boolean().optional(),
  /** Present (true) only when the request asked for a spreadsheet-safe csv file. */
  spreadsheetSafe: z.boolean().optional(),
  createdAt: utcDateTimeSchema,
};

/**
 * Reply of GET /locations/exports/{id} (and of each item of the list). The download fields appear only when COMPLETED.
 * Additive fields: `progress` while PENDING (`total` once generation knows it), `error` when FAILED, `sha256` (hex)
 * and `sizeBytes` of the file when COMPLETED.
 */
export const exportStatusReplySchema = z.discriminatedUnion('status', [
  z
    .object({
      ...requestFields,
      status: z.literal('PENDING'),
      progress: z.object({ written: countSchema, total: countSchema.optional() }).strict(),
    })
    .strict(),
  z
    .object({
      ...requestFields,
      ...completedFields,
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      sizeBytes: countSchema,
    })
    .strict(),
  z
    .object({
      ...requestFields,
      status: z.literal('FAILED'),
      error: z.object({ code: errorCodeSchema, message: nonEmptyStringSchema }).strict(),
    })
    .strict(),
]);
/** Reply of GET /locations/exports/{id}. */
export type ExportStatusReply = z.infer<typeof exportStatusReplySchema>;

/** Reply of GET /locations/exports: the caller's exports, newest first. */
export const exportListReplySchema = z
  .object({
    exports: z.array(exportStatusReplySchema),
    pagination: paginationSchema,
  })
  .strict();
/** Reply of GET /locations/exports. */
export type ExportListReply = z.infer<typeof exportListReplySchema>;

/** The version a row of a file exported with includeVersions ends with: the read model's, 1 at creation. */
const exportedVersionField = {
  version: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      'Only in a file exported with includeVersions (then on every item, as its last key): the version of this row ' +
        'in the same snapshot (1 at creation, one more per change): the ETag of its GET (/locations/{id}, ' +
        '/location-groups/{id}, /address-groups/{id}) and the event.version of webhooks and the change feed.',
    ),
};

/** A location of a json export file: as GET /locations/{id} serves it, with `version` last when includeVersions. */
export const exportedLocationSchema = locationSchema.extend(exportedVersionField).strict();

/**
 * The downloaded file of a json export: the OAF-100 file shape plus the additive group arrays, each ordered by id. A
 * full export holds every live group; an incremental one the groups changed after its modifiedSince, tombstones
 * (with deletedAt) included. Files generated before groups were exported lack both arrays. With includeVersions every
 * location and group item ends with its `version`.
 */
export const jsonExportFileSchema = z
  .object({
    exportTimestamp: utcDateTimeSchema,
    totalCount: countSchema,
    locations: z.array(exportedLocationSchema),
    locationGroups: z.array(locationGroupListItemSchema.extend(exportedVersionField).strict()).optional(),
    addressGroups: z.array(addressGroupListItemSchema.extend(exportedVersionField).strict()).optional(),
  })
  .strict();
/** The downloaded file of a json export. */
export type JsonExportFile = z.infer<typeof jsonExportFileSchema>;

/** Query parameters of GET /locations/exports. */
export const EXPORT_LIST_PARAMETERS = ['status', 'limit', 'offset'] as const;
