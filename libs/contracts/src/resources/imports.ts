import { z } from 'zod';
import { errorCodeSchema } from '../errors/error-codes';
import { countSchema, nonEmptyStringSchema } from '../primitives';

/** `merge` leaves locations missing from the file as they are; `full-replace` retires them. */
export const IMPORT_MODES = ['merge', 'full-replace'] as const;
/** How an import treats locations missing from the file. */
export type ImportMode = (typeof IMPORT_MODES)[number];

/** Media types POST /operator/imports accepts: one Location (or LocationInput with id) per line, or CSV records. */
export const IMPORT_MEDIA_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;

/** Why one row was not applied: its line, its id when it had one, and the error as the API would have answered it. */
export const importRejectionSchema = z
  .object({
    line: z.number().int().min(1),
    id: z.string().optional(),
    code: errorCodeSchema,
    message: nonEmptyStringSchema,
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
/** Why one row was not applied. */
export type ImportRejection = z.infer<typeof importRejectionSchema>;

/** What an import did; the reply of POST /operator/imports. */
export const importReportSchema = z
  .object({
    mode: z.enum(IMPORT_MODES),
    /** Data rows in the file (blank lines and the CSV header are not rows). */
    rowsRead: countSchema,
    created: countSchema,
    updated: countSchema,
    /** Rows equal to the stored location: nothing recorded, no event. */
    unchanged: countSchema,
    rejected: countSchema,
    /** Locations missing from a full-replace file that left service as RETIRED; always 0 for a merge. */
    retired: countSchema,
    /** The first rejected rows, in file order; `rejectionsOmitted` counts the rest. */
    rejections: z.array(importRejectionSchema),
    rejectionsOmitted: countSchema,
  })
  .strict();
/** What an import did. */
export type ImportReport = z.infer<typeof importReportSchema>;
