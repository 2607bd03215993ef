import { z } from 'zod';
import { nonEmptyStringSchema } from '../primitives';
import { validationIssueSchema } from '../validation';
import { errorCodeSchema, type ErrorCode } from './error-codes';

/** Every error reply: `{ error: { code, message, details? } }`. */
export const errorBodySchema = z
  .object({
    error: z
      .object({
        code: errorCodeSchema,
        message: nonEmptyStringSchema,
        details: z.record(z.string(), z.unknown()).optional(),
      })
      .strict(),
  })
  .strict();
/** Every error reply. */
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Builds an error body; `details` is left out when not given. */
export function errorBody(code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** Kinds of resource named in RESOURCE_NOT_FOUND details (OAF-100 uses "location"). */
export const RESOURCE_TYPES = [
  'location',
  'locationGroup',
  'addressGroup',
  'export',
  'client',
  'delivery',
  'endpoint',
  'signingKey',
] as const;
/** Kind of resource named in RESOURCE_NOT_FOUND details. */
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** details of RESOURCE_NOT_FOUND. */
export const resourceNotFoundDetailsSchema = z
  .object({ resourceType: z.enum(RESOURCE_TYPES), resourceId: nonEmptyStringSchema })
  .strict();

/** details of VALIDATION_ERROR and its specific variants: every broken rule with its field path. */
export const validationErrorDetailsSchema = z.object({ issues: z.array(validationIssueSchema).min(1) }).strict();
