import { DIGEST_HASH } from '../digest/digest-hash';
import { z } from '../openapi/extend-zod';
import { countSchema, utcDateTimeSchema, uuidSchema } from '../primitives';

/**
 * The Merkle digest of the read model (docs/digest.md): per resource, a tree of nodes named by bucket prefixes, each
 * with a count and an XOR hash of its resources' (id, version), so a client finds which ids differ from its mirror by
 * descending only into the nodes whose hash differs.
 */
export const DIGEST = {
  /** The resources, each with its two paths: GET <path> (a node and its children) and GET <path>/entries. */
  resources: {
    locations: { path: '/locations/digest', entriesPath: '/locations/digest/entries' },
    locationGroups: { path: '/location-groups/digest', entriesPath: '/location-groups/digest/entries' },
    addressGroups: { path: '/address-groups/digest', entriesPath: '/address-groups/digest/entries' },
  },
  prefixParameter: 'prefix',
  depthParameter: 'depth',
  /** Longest prefix of a node (the children of GET …/digest included): 8 hex digits. */
  maxPrefixLength: DIGEST_HASH.maxPrefixLength,
  /** How many levels of children GET …/digest may return at once. */
  maxDepth: 3,
  defaultDepth: 1,
  /** Most entries GET …/digest/entries lists; a larger node is refused with DIGEST_NODE_TOO_LARGE. */
  maxEntries: 10_000,
} as const;

/** A resource the digest covers: every location; the live groups of either kind. */
export const DIGEST_RESOURCES = ['locations', 'locationGroups', 'addressGroups'] as const;
/** A resource the digest covers. */
export type DigestResource = (typeof DIGEST_RESOURCES)[number];

/** Query parameters of GET …/digest; any other is refused (INVALID_FILTER). */
export const DIGEST_PARAMETERS = [DIGEST.prefixParameter, DIGEST.depthParameter] as const;
/** Query parameters of GET …/digest/entries; any other is refused (INVALID_FILTER). */
export const DIGEST_ENTRIES_PARAMETERS = [DIGEST.prefixParameter] as const;

const prefixSchema = z
  .string()
  .regex(/^[0-9a-f]{0,8}$/)
  .openapi({
    description: "A node: a prefix of 0 to 8 lowercase hex digits of the resources' buckets ('' is the root).",
    example: 'a3f',
  });

const hashSchema = z
  .string()
  .regex(/^[0-9a-f]{16}$/)
  .openapi({
    description:
      "XOR of the node's entry hashes as 16 lowercase hex digits (0000000000000000 when empty); see docs/digest.md.",
    example: '9c0e4b1f6a2d7e35',
  });

/** A node of the digest tree: how many resources its bucket prefix holds and the XOR of their entry hashes. */
export const digestNodeSchema = z.object({ prefix: prefixSchema, count: countSchema, hash: hashSchema }).strict();
/** A node of the digest tree. */
export type DigestNodeReplyItem = z.infer<typeof digestNodeSchema>;

/**
 * Where the read model stood when the reply was computed: per topic of the resource, per partition, the next offset
 * it will apply (a decimal string, as Kafka offsets are 64-bit), from the same snapshot as the nodes.
 */
export const digestPositionSchema = z.record(z.string(), z.record(z.string(), z.string().regex(/^\d+$/))).openapi({
  description:
    "The read model's position in the snapshot the reply was computed from: per topic, per partition, the next " +
    'offset it will apply (decimal string). Changes at or after it are not reflected yet.',
  example: { 'location.events.v1': { '0': '1234', '1': '99' } },
});
/** Where the read model stood when a digest reply was computed. */
export type DigestPosition = z.infer<typeof digestPositionSchema>;

const replyFields = {
  resource: z.enum(DIGEST_RESOURCES),
  prefix: prefixSchema,
  count: countSchema,
  hash: hashSchema,
  position: digestPositionSchema,
  computedAt: utcDateTimeSchema.describe('When the snapshot was read (UTC), by the read side clock.'),
};

/** Reply of GET /locations/digest, /location-groups/digest, /address-groups/digest. */
export const digestNodeReplySchema = z
  .object({
    ...replyFields,
    children: z.array(digestNodeSchema).openapi({
      description: 'The non-empty nodes exactly `depth` levels below `prefix`, ordered by prefix.',
    }),
  })
  .strict();
/** Reply of GET …/digest. */
export type DigestNodeReply = z.infer<typeof digestNodeReplySchema>;

/** One resource of a node: its id and current version. */
export const digestEntrySchema = z.object({ id: uuidSchema, version: z.number().int().min(1) }).strict();
/** One resource of a node. */
export type DigestEntryReplyItem = z.infer<typeof digestEntrySchema>;

/** Reply of GET /locations/digest/entries, /location-groups/digest/entries, /address-groups/digest/entries. */
export const digestEntriesReplySchema = z
  .object({
    ...replyFields,
    entries: z.array(digestEntrySchema).openapi({ description: 'Every resource of the node, ordered by id.' }),
  })
  .strict();
/** Reply of GET …/digest/entries. */
export type DigestEntriesReply = z.infer<typeof digestEntriesReplySchema>;
