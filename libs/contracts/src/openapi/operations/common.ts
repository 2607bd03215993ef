// What the operations of several actors share: body and reply builders, parameters, request headers, error lists.
import { ENTITY_TAGS_PATTERN } from '../../conditional-headers';
import type { ErrorCode } from '../../errors/error-codes';
import { utcDateTimeSchema, uuidSchema } from '../../primitives';
import { IDEMPOTENCY_KEY_HEADER } from '../../resources/exports';
import { PAGINATION } from '../../resources/groups';
import { DELIVERY_STATUSES } from '../../resources/webhook-deliveries';
import * as examples from '../examples';
import { z } from '../extend-zod';
import type { HeaderName } from '../headers';
import type { Body, Reply } from './api-operation';
import { SCHEMAS } from './schemas';

export const json = (schema: z.ZodTypeAny, example: unknown): Body => ({ schema, example });
export const reply = (description: string, body?: Body, headers?: HeaderName[]): Reply => ({
  description,
  body,
  headers,
});

export const id = (description: string) =>
  z.object({ id: uuidSchema.openapi({ description, example: examples.EXAMPLE_IDS.location }) });
export const page = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PAGINATION.maxLimit)
    .optional()
    .openapi({ description: `Page size, 1 to ${PAGINATION.maxLimit}; default ${PAGINATION.defaultLimit}.` }),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(PAGINATION.maxOffset)
    .optional()
    .openapi({
      description: `Items to skip, 0 to ${PAGINATION.maxOffset}; default 0. Deeper: narrow the filters.`,
    }),
};
/** The page of a list in id order: offset as above, or `after` an id (the previous page's `pagination.next`). */
export const pageById = {
  ...page,
  offset: page.offset.openapi({
    description: `Items to skip, 0 to ${PAGINATION.maxOffset}; default 0. Deeper: page by \`after\`.`,
  }),
  after: uuidSchema.optional().openapi({
    description:
      "Only items whose id is greater, in id order (a group list too): pass the previous page's `pagination.next`. " +
      'Not with an offset.',
  }),
};
export const ifMatch = z.object({
  'if-match': z
    .string()
    .regex(ENTITY_TAGS_PATTERN)
    .optional()
    .openapi({
      description:
        'Write only over this version: `*` or ETags (`"3"`); 412 PRECONDITION_FAILED when none is current, 400 ' +
        'INVALID_REQUEST when malformed.',
      example: '"3"',
    }),
});
export const ifNoneMatch = z.object({
  'if-none-match': z.string().optional().openapi({ description: 'An ETag: 304 without a body when it is current.' }),
});
export const notModified = reply('Not modified: the If-None-Match ETag is the current version.', undefined, ['ETag']);
export const deliveryQuery = {
  status: z.enum(DELIVERY_STATUSES).optional(),
  since: utcDateTimeSchema.optional().openapi({ description: 'Only deliveries created at or after this time.' }),
  until: utcDateTimeSchema.optional().openapi({ description: 'Only deliveries created before this time.' }),
  ...page,
};

export const READ_ERRORS: ErrorCode[] = ['INVALID_REQUEST', 'RESOURCE_NOT_FOUND'];
export const LIST_ERRORS: ErrorCode[] = ['INVALID_LIMIT', 'INVALID_OFFSET', 'INVALID_FILTER'];
/** The Idempotency-Key request header of the creations whose id the server chooses. */
export const idempotencyKey = z.object({
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .max(255)
    .optional()
    .openapi({ description: 'Makes the request safe to repeat: same key and body, same reply.' }),
});

export const location = json(SCHEMAS.Location, examples.exampleLocation);
