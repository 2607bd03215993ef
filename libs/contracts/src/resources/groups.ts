import { z } from 'zod';
import { countSchema, nonEmptyStringSchema, utcDateTimeSchema, uuidSchema } from '../primitives';

/**
 * Paging of the lists: limit defaults to 100 and may be 1 to 1000 (OAF-100), offset defaults to 0 and may be at most
 * maxOffset (deeper pages are read by cursor, `after`, where a list offers one); a list's total is counted exactly up
 * to exactTotalUpTo items, past that it is the planner's estimate (flagged `totalEstimated`).
 */
export const PAGINATION = {
  defaultLimit: 100,
  maxLimit: 1000,
  defaultOffset: 0,
  maxOffset: 10_000,
  exactTotalUpTo: 10_000,
} as const;

/** The paging a list reply applied, and how many items match in total. */
export const paginationSchema = z
  .object({
    limit: z.number().int().min(1).max(PAGINATION.maxLimit),
    offset: countSchema,
    total: countSchema,
    // A boolean, though only ever sent as true: `enum: [true]` breaks generated clients (openapi-generator's Java).
    totalEstimated: z
      .boolean()
      .optional()
      .openapi({
        description: `Present (true) when more than ${PAGINATION.exactTotalUpTo} items match: total is then the database's estimate, not a count.`,
      }),
    next: uuidSchema.optional().openapi({
      description: 'Lists paged by id: the `after` of the next page; absent on the last page.',
    }),
  })
  .strict();
/** The paging a list reply applied. */
export type Pagination = z.infer<typeof paginationSchema>;

/** The operator's write body for a location group; `type` is always OTHER. */
export const locationGroupInputSchema = z.object({ name: nonEmptyStringSchema, type: z.enum(['OTHER']) }).strict();
/** The operator's write body for a location group. */
export type LocationGroupInput = z.infer<typeof locationGroupInputSchema>;

/** A business grouping (service area, deployment phase, …) that locations reference by root-level locationGroupId. */
export const locationGroupSchema = z.object({ id: uuidSchema }).merge(locationGroupInputSchema).strict();
/** A business grouping of locations. */
export type LocationGroup = z.infer<typeof locationGroupSchema>;

/** The operator's write body for an address group; `type` is always MDU_COMPLEX. */
export const addressGroupInputSchema = z.object({ name: nonEmptyStringSchema, type: z.enum(['MDU_COMPLEX']) }).strict();
/** The operator's write body for an address group. */
export type AddressGroupInput = z.infer<typeof addressGroupInputSchema>;

/** A multi-dwelling unit that locations reference by address.addressGroupId; it holds no address itself. */
export const addressGroupSchema = z.object({ id: uuidSchema }).merge(addressGroupInputSchema).strict();
/** A multi-dwelling unit grouping. */
export type AddressGroup = z.infer<typeof addressGroupSchema>;

/**
 * `deletedAt` of a group list item: present only on a tombstone, which only a list by `modifiedSince` (and an
 * incremental export) holds. The group resource itself keeps the spec's three fields.
 */
const tombstoneFields = {
  deletedAt: utcDateTimeSchema
    .optional()
    .describe('Only on a tombstone: when the group was deleted (UTC). Lists by modifiedSince and exports hold them.'),
};

/**
 * One item of a location group list: the group, or with `deletedAt` (UTC) a tombstone of a deleted group with its
 * last id, name and type.
 */
export const locationGroupListItemSchema = locationGroupSchema.extend(tombstoneFields).strict();
/** A location group, or the tombstone of a deleted one (with deletedAt). */
export type LocationGroupListItem = z.infer<typeof locationGroupListItemSchema>;

/** One item of an address group list: the group, or with `deletedAt` the tombstone of a deleted one. */
export const addressGroupListItemSchema = addressGroupSchema.extend(tombstoneFields).strict();
/** An address group, or the tombstone of a deleted one (with deletedAt). */
export type AddressGroupListItem = z.infer<typeof addressGroupListItemSchema>;

/** Reply of GET /location-groups. */
export const locationGroupListSchema = z
  .object({ locationGroups: z.array(locationGroupListItemSchema), pagination: paginationSchema })
  .strict();
/** Reply of GET /location-groups. */
export type LocationGroupList = z.infer<typeof locationGroupListSchema>;

/** Reply of GET /address-groups. */
export const addressGroupListSchema = z
  .object({ addressGroups: z.array(addressGroupListItemSchema), pagination: paginationSchema })
  .strict();
/** Reply of GET /address-groups. */
export type AddressGroupList = z.infer<typeof addressGroupListSchema>;
