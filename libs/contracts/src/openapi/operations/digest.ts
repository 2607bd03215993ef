// The RSP's reads of the Merkle digests of locations and of both kinds of group (docs/digest.md).
import { TOPICS } from '../../events/topics';
import { DIGEST, type DigestResource } from '../../resources/digest';
import { z } from '../extend-zod';
import type { ApiTag } from '../tags';
import type { ApiOperation } from './api-operation';
import { json, reply } from './common';
import { SCHEMAS } from './schemas';

const DIGEST_NAMES: Record<DigestResource, { noun: string; operationId: string; tag: ApiTag; topic: string }> = {
  locations: {
    noun: 'locations (every one, whatever its status)',
    operationId: 'Locations',
    tag: 'Locations',
    topic: TOPICS.locationEvents.name,
  },
  locationGroups: {
    noun: 'live location groups',
    operationId: 'LocationGroups',
    tag: 'Groups',
    topic: TOPICS.locationGroupEvents.name,
  },
  addressGroups: {
    noun: 'live address groups',
    operationId: 'AddressGroups',
    tag: 'Groups',
    topic: TOPICS.addressGroupEvents.name,
  },
};

const digestPrefix = (maxLength: number, about: string) =>
  z
    .string()
    .regex(new RegExp(`^[0-9a-fA-F]{0,${maxLength}}$`))
    .optional()
    .openapi({
      description: `The node: 0 to ${maxLength} hex digits of the bucket (either case; '' the root). ${about}`,
    });

/** GET …/digest and GET …/digest/entries of each resource (docs/digest.md). */
export const DIGEST_OPERATIONS: ApiOperation[] = (Object.keys(DIGEST.resources) as DigestResource[]).flatMap(
  (resource) => {
    const { noun, operationId, tag, topic } = DIGEST_NAMES[resource];
    const paths = DIGEST.resources[resource];
    return [
      {
        method: 'get',
        path: paths.path,
        operationId: `get${operationId}Digest`,
        tag,
        summary: `A node of the Merkle digest of the ${noun.replace(/ \(.*\)/, '')}, with its children`,
        description:
          `The digest of the ${noun}: a tree of nodes named by prefixes of SHA-256(id) in hex, each with its count ` +
          'and the XOR of its entry hashes (docs/digest.md defines both so a copy can compute them). Compare with the ' +
          "copy's and descend only into the children that differ. Node, children and `position` come from one snapshot.",
        scope: 'locations:read',
        rateLimited: true,
        request: {
          query: z.object({
            prefix: digestPrefix(DIGEST.maxPrefixLength - 1, 'Default: the root.'),
            depth: z.coerce
              .number()
              .int()
              .min(1)
              .max(DIGEST.maxDepth)
              .optional()
              .openapi({
                description:
                  `How many levels below the node the children are, 1 to ${DIGEST.maxDepth} (default ` +
                  `${DIGEST.defaultDepth}); the prefix's length plus depth is at most ${DIGEST.maxPrefixLength}.`,
              }),
          }),
        },
        responses: {
          200: reply(
            'The node and its non-empty children, ordered by prefix.',
            json(SCHEMAS.DigestNode, {
              resource,
              prefix: 'a3',
              count: 2,
              hash: '5642ef8c25975e31',
              children: [
                { prefix: 'a30', count: 1, hash: 'e197eec53a39bd6e' },
                { prefix: 'a3f', count: 1, hash: 'b7d501491faee35f' },
              ],
              position: { [topic]: { '0': '1234', '1': '99' } },
              computedAt: '2026-11-27T06:00:00.123Z',
            }),
          ),
        },
        errors: ['INVALID_FILTER'],
      },
      {
        method: 'get',
        path: paths.entriesPath,
        operationId: `get${operationId}DigestEntries`,
        tag,
        summary: `The (id, version) of every resource of a digest node of the ${noun.replace(/ \(.*\)/, '')}`,
        description:
          `For a node whose hash differs and that holds at most ${DIGEST.maxEntries} resources: compare the entries ` +
          'with the copy to find exactly the ids that differ. A larger node is refused (DIGEST_NODE_TOO_LARGE).',
        scope: 'locations:read',
        rateLimited: true,
        request: { query: z.object({ prefix: digestPrefix(DIGEST.maxPrefixLength, 'Default: the root.') }) },
        responses: {
          200: reply(
            'The node and its entries, ordered by id.',
            json(SCHEMAS.DigestEntries, {
              resource,
              prefix: 'd4bd',
              count: 1,
              hash: 'e197eec53a39bd6e',
              entries: [{ id: '0190f3c2-7a1b-7c3d-9e4f-5a6b7c8d9e0f', version: 3 }],
              position: { [topic]: { '0': '1234', '1': '99' } },
              computedAt: '2026-11-27T06:00:00.123Z',
            }),
          ),
        },
        errors: ['INVALID_FILTER', 'DIGEST_NODE_TOO_LARGE'],
      },
    ];
  },
);
