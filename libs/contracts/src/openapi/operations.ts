import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { authorizationServerMetadataSchema } from '../auth/authorization-server-metadata';
import {
  clientListSchema,
  clientSecretsSchema,
  clientViewSchema,
  registerClientRequestSchema,
  registeredClientSchema,
  updateClientRequestSchema,
} from '../auth/clients';
import { oauthErrorBodySchema, tokenResponseSchema } from '../auth/oauth';
import type { Scope } from '../auth/scopes';
import { errorBodySchema } from '../errors/error-body';
import { ENTITY_TAGS_PATTERN } from '../conditional-headers';
import { errorCodeSchema, type ErrorCode } from '../errors/error-codes';
import { CHANGE_EVENT_TYPES, LOCATION_EVENT_HEADERS } from '../events/webhooks';
import { nonEmptyStringSchema, utcDateTimeSchema, uuidSchema } from '../primitives';
import {
  EXPORT_STATUSES,
  exportAcceptedSchema,
  exportCompletedNotificationSchema,
  exportFailedNotificationSchema,
  exportFormatSchema,
  exportListReplySchema,
  exportNotificationSchema,
  exportRequestBodySchema,
  exportStatusReplySchema,
  IDEMPOTENCY_KEY_HEADER,
  exportedLocationSchema,
  jsonExportFileSchema,
} from '../resources/exports';
import {
  addressGroupInputSchema,
  addressGroupListSchema,
  addressGroupSchema,
  locationGroupInputSchema,
  locationGroupListSchema,
  locationGroupSchema,
  PAGINATION,
  paginationSchema,
} from '../resources/groups';
import { IMPORT_MEDIA_TYPES, IMPORT_MODES, importReportSchema } from '../resources/imports';
import {
  addressSchema,
  coordinatesSchema,
  fiberAccessDetailsSchema,
  geographySchema,
  locationInputSchema,
  locationModifiedFieldsSchema,
  locationSchema,
  SERVICEABILITY_STATUSES,
  serviceabilitySchema,
  serviceabilityStatusSchema,
} from '../resources/location';
import { locationListSchema } from '../resources/read-queries';
import { CHANGE_FEED, changeEventDeliverySchema, changeEventSchema, changeFeedPageSchema } from '../resources/changes';
import { TOPICS } from '../events/topics';
import { DIGEST, digestEntriesReplySchema, digestNodeReplySchema, type DigestResource } from '../resources/digest';
import { statisticsResponseSchema } from '../resources/statistics';
import {
  DELIVERY_STATUSES,
  deliveryDetailSchema,
  deliveryListSchema,
  endpointSchema,
  redriveReplySchema,
  redriveRequestSchema,
  subscriptionUpdateSchema,
} from '../resources/webhook-deliveries';
import type { ApiTag, HeaderName } from './document';
import * as examples from './examples';
import { z } from './extend-zod';
import { csvExportRecordSchema, variantOf } from './schema-helpers';

/** A request or reply body: its schema, one example, and its media type (JSON unless said). */
export interface Body {
  schema: z.ZodTypeAny;
  example: unknown;
  mediaType?: string;
  /** A request body is required unless it (or, with several media types, any of them) says `false`. */
  required?: boolean;
}

/** A success reply: what it means, its body, and the headers it carries beyond X-Request-Id. */
export interface Reply {
  description: string;
  body?: Body;
  headers?: HeaderName[];
}

/** One operation of the public API, as the document states it. */
export interface ApiOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form: `/locations/{id}`. */
  path: string;
  operationId: string;
  tag: ApiTag;
  summary: string;
  description?: string;
  /** The scope a bearer token needs; `null` for a public operation. */
  scope: Scope | null;
  request?: {
    params?: z.AnyZodObject;
    query?: z.AnyZodObject;
    headers?: z.AnyZodObject;
    /** The body; several when the operation takes more than one media type (one Body per media type). */
    body?: Body | Body[];
  };
  /** Success replies (and 304) by status; and error replies not in the spec's error shape (the token endpoint's). */
  responses: Record<number, Reply>;
  /** Error codes beyond those every operation can answer (401/403 with a token, 413/415 with a body, 500, 503). */
  errors?: ErrorCode[];
  /**
   * Counted against the caller's rate limit (the services' RATE_LIMITS): 429 RATE_LIMIT_EXCEEDED past it, and the
   * RateLimit-Policy and RateLimit fields on its replies.
   */
  rateLimited?: true;
}

/** The media type a body is sent in: JSON unless it says otherwise. */
export const mediaTypeOf = (body: Body): string => body.mediaType ?? 'application/json';

/** An operation's request bodies as a list, one per media type it accepts; empty without a body. */
export function requestBodies(operation: ApiOperation): Body[] {
  const body = operation.request?.body;
  if (body === undefined) return [];
  return Array.isArray(body) ? body : [body];
}

/**
 * The schemas the document names under components.schemas; operations use these named copies. Wherever the document
 * repeats a shape named here it refers to it (`$ref`), and a union whose named options one field tells apart becomes a
 * discriminated `oneOf` (references.ts): to give a generated client a type of its own, name its schema here.
 */
export const SCHEMAS = {
  Location: locationSchema.openapi('Location'),
  LocationInput: locationInputSchema.openapi('LocationInput'),
  LocationPatch: (locationModifiedFieldsSchema as z.ZodTypeAny).openapi('LocationPatch', {
    description:
      'A JSON Merge Patch (RFC 7396) of a LocationInput: only the fields to change, `null` removes an optional field.',
  }),
  LocationList: locationListSchema.openapi('LocationList'),
  LocationGroup: locationGroupSchema.openapi('LocationGroup'),
  LocationGroupInput: locationGroupInputSchema.openapi('LocationGroupInput'),
  LocationGroupPatch: locationGroupInputSchema.partial().openapi('LocationGroupPatch'),
  LocationGroupList: locationGroupListSchema.openapi('LocationGroupList'),
  AddressGroup: addressGroupSchema.openapi('AddressGroup'),
  AddressGroupInput: addressGroupInputSchema.openapi('AddressGroupInput'),
  AddressGroupPatch: addressGroupInputSchema.partial().openapi('AddressGroupPatch'),
  AddressGroupList: addressGroupListSchema.openapi('AddressGroupList'),
  Geography: geographySchema.openapi('Geography'),
  Address: addressSchema.openapi('Address'),
  Coordinates: coordinatesSchema.openapi('Coordinates'),
  FiberAccessDetails: fiberAccessDetailsSchema.openapi('FiberAccessDetails'),
  Serviceability: serviceabilitySchema.openapi('Serviceability'),
  ServiceabilityStatus: serviceabilityStatusSchema.openapi('ServiceabilityStatus'),
  Pagination: paginationSchema.openapi('Pagination'),
  Statistics: statisticsResponseSchema.openapi('Statistics'),
  ImportReport: importReportSchema.openapi('ImportReport'),
  ExportRequest: exportRequestBodySchema.openapi('ExportRequest'),
  ExportAccepted: exportAcceptedSchema.openapi('ExportAccepted'),
  ExportFormat: exportFormatSchema.openapi('ExportFormat'),
  ExportFilters: (exportRequestBodySchema.shape.filters.unwrap() as z.AnyZodObject).openapi('ExportFilters'),
  ExportError: (exportFailedNotificationSchema.shape.error as z.AnyZodObject).openapi('ExportError'),
  ExportPending: variantOf(exportStatusReplySchema, 'PENDING').openapi('ExportPending'),
  ExportCompleted: variantOf(exportStatusReplySchema, 'COMPLETED').openapi('ExportCompleted', {
    description:
      'A COMPLETED export. GET exportUrl (no token) until downloadExpiresAt: a `json` export is a JsonExportFile, a ' +
      '`csv` export CSV records as CsvExportRecord describes; sha256 and sizeBytes are those of the file.',
  }),
  ExportFailed: variantOf(exportStatusReplySchema, 'FAILED').openapi('ExportFailed'),
  ExportStatus: exportStatusReplySchema.openapi('ExportStatus'),
  ExportList: exportListReplySchema.openapi('ExportList'),
  ExportCompletedNotification: exportCompletedNotificationSchema.openapi('ExportCompletedNotification'),
  ExportFailedNotification: exportFailedNotificationSchema.openapi('ExportFailedNotification'),
  ExportNotification: exportNotificationSchema.openapi('ExportNotification'),
  ExportedLocation: exportedLocationSchema.openapi('ExportedLocation', {
    description:
      'A location of a `json` export file: exactly as GET /locations/{id} serves it, followed by `version` when the ' +
      'export was requested with includeVersions.',
  }),
  JsonExportFile: jsonExportFileSchema.openapi('JsonExportFile', {
    description:
      'The file of a `json` export (`application/json`), as downloaded from exportUrl: every location of the export.',
  }),
  CsvExportRecord: csvExportRecordSchema().openapi('CsvExportRecord'),
  LocationCreatedEvent: changeEventSchema('LOCATION_CREATED').openapi('LocationCreatedEvent'),
  LocationUpdatedEvent: changeEventSchema('LOCATION_UPDATED').openapi('LocationUpdatedEvent'),
  LocationGroupCreatedEvent: changeEventSchema('LOCATION_GROUP_CREATED').openapi('LocationGroupCreatedEvent'),
  LocationGroupUpdatedEvent: changeEventSchema('LOCATION_GROUP_UPDATED').openapi('LocationGroupUpdatedEvent'),
  LocationGroupDeletedEvent: changeEventSchema('LOCATION_GROUP_DELETED').openapi('LocationGroupDeletedEvent'),
  AddressGroupCreatedEvent: changeEventSchema('ADDRESS_GROUP_CREATED').openapi('AddressGroupCreatedEvent'),
  AddressGroupUpdatedEvent: changeEventSchema('ADDRESS_GROUP_UPDATED').openapi('AddressGroupUpdatedEvent'),
  AddressGroupDeletedEvent: changeEventSchema('ADDRESS_GROUP_DELETED').openapi('AddressGroupDeletedEvent'),
  LocationEvent: changeEventDeliverySchema.openapi('LocationEvent', {
    description:
      "The OAF-100 event envelope: `data` is the location (or group) after the change, `modifiedFields` a location's diff, `version` the resource's version. Group events (LOCATION_GROUP_*, ADDRESS_GROUP_*) are this service's addition; a deletion's `data` is the group's last state.",
  }),
  ChangeFeedPage: changeFeedPageSchema.openapi('ChangeFeedPage', {
    description:
      'A page of the change feed: each change exactly as the webhook to /locations/events delivers it (the envelope ' +
      "with its resource's version), `next` the cursor to continue from (also on an empty page), `hasMore` whether " +
      'more can be read at once.',
  }),
  DigestNode: digestNodeReplySchema.openapi('DigestNode', {
    description:
      "A node of a resource's Merkle digest (docs/digest.md): its count and hash and its non-empty children, with the " +
      "read model's position in the snapshot they were computed from.",
  }),
  DigestEntries: digestEntriesReplySchema.openapi('DigestEntries', {
    description: "A node of a resource's Merkle digest with every (id, version) it holds, ordered by id.",
  }),
  ErrorCode: errorCodeSchema.openapi('ErrorCode'),
  ErrorBody: errorBodySchema.openapi('ErrorBody'),
  TokenRequest: z
    .object({
      grant_type: z.literal('client_credentials'),
      scope: z.string().optional().openapi({ description: 'Space-separated scopes; all the client holds if absent.' }),
      client_id: z.string().optional().openapi({ description: 'With client_secret, instead of HTTP Basic.' }),
      client_secret: z.string().optional(),
    })
    .openapi('TokenRequest'),
  TokenResponse: tokenResponseSchema.openapi('TokenResponse'),
  OAuthError: oauthErrorBodySchema.openapi('OAuthError'),
  AuthorizationServerMetadata: authorizationServerMetadataSchema.openapi('AuthorizationServerMetadata'),
  JsonWebKeySet: z
    .object({
      keys: z.array(
        z.object({
          kty: z.string(),
          kid: z.string(),
          alg: z.string(),
          use: z.literal('sig').optional(),
          crv: z.string().optional(),
          x: z.string().optional(),
          y: z.string().optional(),
          n: z.string().optional(),
          e: z.string().optional(),
        }),
      ),
    })
    .openapi('JsonWebKeySet', { description: 'The public keys that verify access tokens (RFC 7517).' }),
  ApiClientView: clientViewSchema.openapi('ApiClientView'),
  ApiClientRegistration: registerClientRequestSchema.openapi('ApiClientRegistration'),
  ApiClientUpdate: (updateClientRequestSchema as z.ZodTypeAny).openapi('ApiClientUpdate'),
  RegisteredApiClient: registeredClientSchema.openapi('RegisteredApiClient'),
  ApiClientSecrets: clientSecretsSchema.openapi('ApiClientSecrets'),
  ApiClientList: clientListSchema.openapi('ApiClientList'),
  DeliveryDetail: deliveryDetailSchema.openapi('DeliveryDetail'),
  DeliveryList: deliveryListSchema.openapi('DeliveryList'),
  Endpoint: endpointSchema.openapi('Endpoint'),
  EndpointList: z
    .object({ endpoints: z.array(endpointSchema) })
    .strict()
    .openapi('EndpointList'),
  SubscriptionUpdate: subscriptionUpdateSchema.openapi('SubscriptionUpdate'),
  RedriveRequest: redriveRequestSchema.openapi('RedriveRequest'),
  RedriveReply: redriveReplySchema.openapi('RedriveReply'),
  OpenApiDocument: z
    .object({ openapi: z.string(), info: z.object({}).passthrough(), paths: z.object({}).passthrough() })
    .passthrough()
    .openapi('OpenApiDocument'),
};

const json = (schema: z.ZodTypeAny, example: unknown): Body => ({ schema, example });
const reply = (description: string, body?: Body, headers?: HeaderName[]): Reply => ({ description, body, headers });

const id = (description: string) =>
  z.object({ id: uuidSchema.openapi({ description, example: examples.EXAMPLE_IDS.location }) });
const clientId = z.object({
  clientId: nonEmptyStringSchema.openapi({ description: 'The client id', example: examples.EXAMPLE_IDS.client }),
});
const page = {
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
const pageById = {
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
const ifMatch = z.object({
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
const ifNoneMatch = z.object({
  'if-none-match': z.string().optional().openapi({ description: 'An ETag: 304 without a body when it is current.' }),
});
const notModified = reply('Not modified: the If-None-Match ETag is the current version.', undefined, ['ETag']);
const deliveryQuery = {
  status: z.enum(DELIVERY_STATUSES).optional(),
  since: utcDateTimeSchema.optional().openapi({ description: 'Only deliveries created at or after this time.' }),
  until: utcDateTimeSchema.optional().openapi({ description: 'Only deliveries created before this time.' }),
  ...page,
};

const READ_ERRORS: ErrorCode[] = ['INVALID_REQUEST', 'RESOURCE_NOT_FOUND'];
const LIST_ERRORS: ErrorCode[] = ['INVALID_LIMIT', 'INVALID_OFFSET', 'INVALID_FILTER'];
/** The Idempotency-Key request header of the creations whose id the server chooses. */
const idempotencyKey = z.object({
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .max(255)
    .optional()
    .openapi({ description: 'Makes the request safe to repeat: same key and body, same reply.' }),
});

const LOCATION_WRITE_ERRORS: ErrorCode[] = [
  'INVALID_REQUEST',
  'VALIDATION_ERROR',
  'INVALID_COORDINATES',
  'INVALID_ADDRESS_FORMAT',
  'MISSING_LOCATION_DATA',
  'INVALID_STATUS_TRANSITION',
  'INVALID_GROUP_REFERENCE',
  'CONFLICT',
];
const GROUP_WRITE_ERRORS: ErrorCode[] = ['INVALID_REQUEST', 'VALIDATION_ERROR', 'CONFLICT'];

/** The write and read operations of one kind of group; both kinds follow the same rules. */
function groupOperations(kind: {
  path: string;
  name: string;
  schema: z.ZodTypeAny;
  input: z.ZodTypeAny;
  patch: z.ZodTypeAny;
  list: z.ZodTypeAny;
  example: { id: string; name: string; type: string };
  listExample: unknown;
  type: string;
}): ApiOperation[] {
  const { example } = kind;
  const input = { name: example.name, type: example.type };
  const written = reply(`The ${kind.name}.`, json(kind.schema, example), ['ETag']);
  const itemPath = `/operator/${kind.path}/{id}`;
  const pascal = kind.name.replace(/(^|\s)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
  return [
    {
      method: 'get',
      path: `/${kind.path}`,
      operationId: `list${pascal}s`,
      tag: 'Groups',
      summary: `List ${kind.name}s`,
      description:
        `Without modifiedSince: the live ${kind.name}s, ordered by name (byte order) then id. With modifiedSince: ` +
        `every ${kind.name} changed after it, ordered by id, a deleted one as a tombstone (its last id, name and ` +
        'type, and `deletedAt`), counted in pagination.total.',
      scope: 'locations:read',
      rateLimited: true,
      request: {
        query: z.object({
          type: z
            .literal(kind.type)
            .optional()
            .openapi({ description: `Always ${kind.type}.` }),
          name: nonEmptyStringSchema
            .optional()
            .openapi({ description: 'Any part of the name, in any case (`%` and `_` are plain characters).' }),
          modifiedSince: utcDateTimeSchema.optional().openapi({
            description: 'Only groups changed after this UTC time, deleted ones included as tombstones with deletedAt.',
          }),
          ...pageById,
        }),
      },
      responses: {
        200: reply(
          `A page of ${kind.name}s (with modifiedSince, tombstones among them).`,
          json(kind.list, kind.listExample),
        ),
      },
      errors: LIST_ERRORS,
    },
    {
      method: 'get',
      path: `/${kind.path}/{id}`,
      operationId: `get${pascal}`,
      tag: 'Groups',
      summary: `Get a ${kind.name}`,
      scope: 'locations:read',
      rateLimited: true,
      request: { params: id(`The ${kind.name} id`), headers: ifNoneMatch },
      responses: { 200: written, 304: notModified },
      errors: READ_ERRORS,
    },
    {
      method: 'post',
      path: `/operator/${kind.path}`,
      operationId: `create${pascal}`,
      tag: 'Operator',
      summary: `Create a ${kind.name}`,
      scope: 'locations:write',
      request: { body: json(kind.input, input) },
      responses: { 201: reply(`Created.`, json(kind.schema, example), ['ETag', 'Location']) },
      errors: GROUP_WRITE_ERRORS,
    },
    {
      method: 'get',
      path: itemPath,
      operationId: `getOperator${pascal}`,
      tag: 'Operator',
      summary: `Get a ${kind.name} as written`,
      scope: 'locations:write',
      request: { params: id(`The ${kind.name} id`) },
      responses: { 200: written },
      errors: READ_ERRORS,
    },
    {
      method: 'put',
      path: itemPath,
      operationId: `replace${pascal}`,
      tag: 'Operator',
      summary: `Create or replace a ${kind.name} at an id`,
      scope: 'locations:write',
      request: { params: id(`The ${kind.name} id`), headers: ifMatch, body: json(kind.input, input) },
      responses: { 200: written, 201: reply('Created at this id.', json(kind.schema, example), ['ETag']) },
      errors: [...GROUP_WRITE_ERRORS, 'PRECONDITION_FAILED'],
    },
    {
      method: 'patch',
      path: itemPath,
      operationId: `update${pascal}`,
      tag: 'Operator',
      summary: `Change fields of a ${kind.name} (JSON Merge Patch)`,
      scope: 'locations:write',
      request: {
        params: id(`The ${kind.name} id`),
        headers: ifMatch,
        body: { schema: kind.patch, example: { name: example.name }, mediaType: 'application/merge-patch+json' },
      },
      responses: { 200: written },
      errors: [...GROUP_WRITE_ERRORS, 'RESOURCE_NOT_FOUND', 'PRECONDITION_FAILED'],
    },
    {
      method: 'delete',
      path: itemPath,
      operationId: `delete${pascal}`,
      tag: 'Operator',
      summary: `Delete a ${kind.name}`,
      description: 'Refused with 409 CONFLICT while locations reference it.',
      scope: 'locations:write',
      request: { params: id(`The ${kind.name} id`), headers: ifMatch },
      responses: { 204: reply('Deleted.') },
      errors: [...READ_ERRORS, 'CONFLICT', 'PRECONDITION_FAILED'],
    },
  ];
}

const location = json(SCHEMAS.Location, examples.exampleLocation);
const locationInput = json(SCHEMAS.LocationInput, examples.exampleLocationInput);

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
const DIGEST_OPERATIONS: ApiOperation[] = (Object.keys(DIGEST.resources) as DigestResource[]).flatMap((resource) => {
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
});

/** Every operation of the public API. */
export const API_OPERATIONS: ApiOperation[] = [
  // Authentication
  {
    method: 'post',
    path: '/oauth/token',
    operationId: 'issueToken',
    tag: 'Authentication',
    summary: 'Get an access token (client credentials)',
    description:
      'Client credentials by HTTP Basic (`client_secret_basic`) or in the form (`client_secret_post`). Errors follow ' +
      'RFC 6749 section 5.2 (`{ "error", "error_description" }`), which OAuth client libraries parse; repeated ' +
      'failures for one client id answer 429 `temporarily_unavailable` with Retry-After.',
    scope: null,
    request: {
      body: {
        schema: SCHEMAS.TokenRequest,
        example: { grant_type: 'client_credentials', scope: 'locations:read' },
        mediaType: 'application/x-www-form-urlencoded',
      },
    },
    responses: {
      200: reply('The token.', json(SCHEMAS.TokenResponse, examples.exampleTokenResponse), ['Cache-Control']),
      400: reply(
        '`invalid_request` (a parameter missing, repeated or malformed), `unsupported_grant_type`, `invalid_scope`.',
        json(SCHEMAS.OAuthError, { error: 'invalid_scope', error_description: 'The client may not hold auth:admin' }),
      ),
      401: reply(
        '`invalid_client`: unknown client, wrong secret, or a disabled client.',
        json(SCHEMAS.OAuthError, { error: 'invalid_client', error_description: 'Client authentication failed' }),
        ['WWW-Authenticate'],
      ),
      429: reply(
        '`temporarily_unavailable`: too many failed attempts for this client id; see Retry-After.',
        json(SCHEMAS.OAuthError, { error: 'temporarily_unavailable' }),
        ['Retry-After'],
      ),
    },
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'getJsonWebKeySet',
    tag: 'Authentication',
    summary: 'The keys that verify access tokens',
    scope: null,
    responses: { 200: reply('The key set (RFC 7517).', json(SCHEMAS.JsonWebKeySet, examples.exampleJwks)) },
  },
  ...['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'].map(
    (path, index): ApiOperation => ({
      method: 'get',
      path,
      operationId: index === 0 ? 'getAuthorizationServerMetadata' : 'getOpenIdConfiguration',
      tag: 'Authentication',
      summary:
        index === 0
          ? 'OAuth 2.0 authorization server metadata (RFC 8414)'
          : 'The same metadata where OpenID-first client libraries look',
      scope: null,
      responses: {
        200: reply(
          'The metadata; cacheable for an hour.',
          json(SCHEMAS.AuthorizationServerMetadata, examples.exampleAuthorizationServerMetadata),
          ['Cache-Control'],
        ),
      },
    }),
  ),
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Documentation',
    summary: 'This document',
    description: 'Rendered for people at /docs.',
    scope: null,
    responses: {
      200: reply('The OpenAPI 3.1 document.', json(SCHEMAS.OpenApiDocument, { openapi: '3.1.0', info: {}, paths: {} })),
    },
  },
  {
    method: 'get',
    path: '/openapi-rsp.json',
    operationId: 'getRspOpenApiDocument',
    tag: 'Documentation',
    summary: "This document for an RSP: without the operator's and the administrators' operations",
    description:
      'The document to generate an RSP client from: the public and `locations:read` operations and the webhooks.',
    scope: null,
    responses: {
      200: reply(
        'The OpenAPI 3.1 document for RSPs.',
        json(SCHEMAS.OpenApiDocument, { openapi: '3.1.0', info: {}, paths: {} }),
      ),
    },
  },

  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    tag: 'Documentation',
    summary: 'This document rendered for people (Swagger UI)',
    description: 'The page loads its script and style from /docs/*, served with it; no CDN.',
    scope: null,
    responses: {
      200: reply(
        'The HTML page.',
        {
          schema: z.string(),
          example: '<!doctype html><html lang="en">…</html>',
          mediaType: 'text/html',
        },
        ['Cache-Control'],
      ),
    },
  },

  // Locations (RSP)
  {
    method: 'get',
    path: '/locations/{id}',
    operationId: 'getLocation',
    tag: 'Locations',
    summary: 'Get a location',
    description: 'Its version is the ETag; with If-None-Match of the current version the reply is 304 without a body.',
    scope: 'locations:read',
    rateLimited: true,
    request: { params: id('The location id'), headers: ifNoneMatch },
    responses: { 200: reply('The location.', location, ['ETag']), 304: notModified },
    errors: READ_ERRORS,
  },
  {
    method: 'get',
    path: '/locations',
    operationId: 'listLocations',
    tag: 'Locations',
    summary: 'List locations, by group',
    scope: 'locations:read',
    rateLimited: true,
    request: {
      query: z.object({
        locationGroupId: uuidSchema.optional().openapi({ description: 'Only members of this location group.' }),
        addressGroupId: uuidSchema.optional().openapi({ description: 'Only members of this address group (MDU).' }),
        ...pageById,
      }),
    },
    responses: {
      200: reply('A page of locations, ordered by id.', json(SCHEMAS.LocationList, examples.exampleLocationList)),
    },
    errors: LIST_ERRORS,
  },
  {
    method: 'get',
    path: CHANGE_FEED.path,
    operationId: 'listLocationChanges',
    tag: 'Locations',
    summary: 'Read the change feed: every location and group change after a cursor, in commit order',
    description:
      'Changes of locations and of both kinds of groups, each exactly as the webhook to /locations/events describes ' +
      "it, in the order the feed committed them (a resource's changes in version order), without gaps or repeats. " +
      "Start without `after` (the oldest change retained), then pass each reply's `next`; when `hasMore` is false, " +
      'poll `next` again later. Changes are retained for CHANGE_FEED_RETENTION_DAYS (at least 7 days); a cursor ' +
      'older than that, or from before a rebuild of the feed, is refused with 410 CHANGE_CURSOR_EXPIRED: take a ' +
      'full export, then read from the start again and apply only versions newer than the copy holds.',
    scope: 'locations:read',
    rateLimited: true,
    request: {
      query: z.object({
        after: z.string().min(1).optional().openapi({
          description: 'The `next` of a previous reply, unchanged (opaque); absent: from the oldest retained.',
        }),
        limit: z.coerce
          .number()
          .int()
          .min(1)
          .max(CHANGE_FEED.maxLimit)
          .optional()
          .openapi({ description: `Most changes, 1 to ${CHANGE_FEED.maxLimit}; default ${CHANGE_FEED.defaultLimit}.` }),
      }),
    },
    responses: {
      200: reply(
        'Up to `limit` changes after the cursor, in feed order.',
        json(SCHEMAS.ChangeFeedPage, {
          changes: [examples.exampleLocationEvent],
          next: 'eyJ2IjoxLCJlIjoiOWYzYzJhMWI0ZDVlNmY3MCIsInQiOiI3NDIxIiwicyI6IjEwMjQifQ',
          hasMore: false,
        }),
      ),
    },
    errors: ['INVALID_REQUEST', 'INVALID_LIMIT', 'INVALID_FILTER', 'CHANGE_CURSOR_EXPIRED'],
  },
  ...DIGEST_OPERATIONS,
  {
    method: 'get',
    path: '/locations/statistics',
    operationId: 'getLocationStatistics',
    tag: 'Statistics',
    summary: 'Count locations, by the filters given (all combined)',
    description:
      'For the daily check of a copy: compare totalCount and the counts by status with the copy; export when they differ.',
    scope: 'locations:read',
    rateLimited: true,
    request: {
      query: z.object({
        status: z
          .array(z.enum(SERVICEABILITY_STATUSES))
          .optional()
          .openapi({ description: 'Only these statuses (repeat the parameter, or separate them by commas).' }),
        modifiedSince: utcDateTimeSchema.optional().openapi({ description: 'Only locations updated after this time.' }),
        modifiedBefore: utcDateTimeSchema
          .optional()
          .openapi({ description: 'Only locations updated before this time.' }),
        hasAddress: z.boolean().optional(),
        hasCoordinates: z.boolean().optional(),
        hasLocationGroup: z.boolean().optional(),
        addressGroupId: uuidSchema.optional(),
        locationGroupId: uuidSchema.optional(),
        country: z
          .string()
          .regex(/^[A-Za-z]{2}$/)
          .optional()
          .openapi({ description: 'ISO 3166-1 alpha-2.' }),
        region: nonEmptyStringSchema.optional(),
        locality: nonEmptyStringSchema.optional(),
        postalCode: nonEmptyStringSchema.optional(),
      }),
    },
    responses: { 200: reply('The counts.', json(SCHEMAS.Statistics, examples.exampleStatistics)) },
    errors: ['INVALID_STATUS', 'INVALID_FILTER', 'INVALID_DATE_RANGE'],
  },
  ...groupOperations({
    path: 'location-groups',
    name: 'location group',
    schema: SCHEMAS.LocationGroup,
    input: SCHEMAS.LocationGroupInput,
    patch: SCHEMAS.LocationGroupPatch,
    list: SCHEMAS.LocationGroupList,
    example: examples.exampleLocationGroup,
    listExample: examples.exampleLocationGroupList,
    type: 'OTHER',
  }),
  ...groupOperations({
    path: 'address-groups',
    name: 'address group',
    schema: SCHEMAS.AddressGroup,
    input: SCHEMAS.AddressGroupInput,
    patch: SCHEMAS.AddressGroupPatch,
    list: SCHEMAS.AddressGroupList,
    example: examples.exampleAddressGroup,
    listExample: examples.exampleAddressGroupList,
    type: 'MDU_COMPLEX',
  }),

  // Exports (RSP)
  {
    method: 'post',
    path: '/locations/exports',
    operationId: 'requestExport',
    tag: 'Exports',
    summary: 'Request a bulk export',
    description:
      'Without modifiedSince the export is full; with it, only locations modified after it. The export runs in the ' +
      'background; poll its status or wait for the notification webhook. The same Idempotency-Key and body within ' +
      '24 hours answer the first reply again and start nothing. A json file is `{exportTimestamp, totalCount, ' +
      'locations, locationGroups, addressGroups}`: the group arrays (items as in the group lists, by id) hold every ' +
      'live group of a full export, and the groups changed after modifiedSince of an incremental one, deleted ones ' +
      'as tombstones with `deletedAt`. filters.locationGroupId selects locations only. CSV files hold no groups. ' +
      'With includeVersions (json only) every location and group item ends with its `version` (the ETag of ' +
      'GET /locations/{id}, the event.version of webhooks and the change feed), from the same snapshot as the row. ' +
      'With spreadsheetSafe (csv only) formula cells get a leading apostrophe: a file to open in a spreadsheet, not ' +
      'to load into a copy.',
    scope: 'locations:read',
    request: {
      headers: idempotencyKey,
      body: json(SCHEMAS.ExportRequest, { format: 'json', modifiedSince: '2024-02-29T00:00:00Z' }),
    },
    responses: {
      202: reply('Accepted: the export is PENDING.', json(SCHEMAS.ExportAccepted, examples.exampleExportAccepted), [
        'Location',
        'Idempotent-Replayed',
      ]),
    },
    errors: [
      'INVALID_REQUEST',
      'VALIDATION_ERROR',
      'INVALID_FORMAT',
      'INVALID_DATE_RANGE',
      'INVALID_GROUP_REFERENCE',
      'EXPORT_SIZE_EXCEEDED',
      'CONFLICT',
      'RATE_LIMIT_EXCEEDED',
    ],
  },
  {
    method: 'get',
    path: '/locations/exports',
    operationId: 'listExports',
    tag: 'Exports',
    summary: "List the caller's exports, newest first",
    scope: 'locations:read',
    request: { query: z.object({ status: z.enum(EXPORT_STATUSES).optional(), ...page }) },
    responses: { 200: reply('A page of exports.', json(SCHEMAS.ExportList, examples.exampleExportList)) },
    errors: LIST_ERRORS,
  },
  {
    method: 'get',
    path: '/locations/exports/{id}',
    operationId: 'getExport',
    tag: 'Exports',
    summary: 'Get the status of an export',
    description: "The download fields appear once COMPLETED. Another client's export is 404.",
    scope: 'locations:read',
    request: { params: id('The export requestId') },
    responses: {
      200: {
        description: 'The export: PENDING with progress, COMPLETED with its download, or FAILED with the error.',
        headers: ['Cache-Control'],
        body: json(SCHEMAS.ExportStatus, examples.exampleExportCompleted),
      },
    },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/locations/exports/{id}/link',
    operationId: 'renewExportLink',
    tag: 'Exports',
    summary: 'Sign a new download URL for a COMPLETED export',
    description: 'While the file is kept; 404 once it has been deleted.',
    scope: 'locations:read',
    request: { params: id('The export requestId') },
    responses: {
      200: reply('The export with a new exportUrl.', json(SCHEMAS.ExportStatus, examples.exampleExportCompleted)),
    },
    errors: [...READ_ERRORS, 'CONFLICT'],
  },

  // Webhooks (RSP self-service)
  {
    method: 'get',
    path: '/webhooks/deliveries',
    operationId: 'listMyDeliveries',
    tag: 'Webhooks',
    summary: "The caller's webhook deliveries, newest first",
    scope: 'locations:read',
    request: { query: z.object(deliveryQuery) },
    responses: { 200: reply('A page of deliveries.', json(SCHEMAS.DeliveryList, examples.exampleDeliveryList)) },
    errors: LIST_ERRORS,
  },
  {
    method: 'get',
    path: '/webhooks/deliveries/{id}',
    operationId: 'getMyDelivery',
    tag: 'Webhooks',
    summary: 'One delivery with its attempts',
    scope: 'locations:read',
    request: { params: id('The delivery id (the webhook-id header)') },
    responses: { 200: reply('The delivery.', json(SCHEMAS.DeliveryDetail, examples.exampleDeliveryDetail)) },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/webhooks/deliveries/{id}/redeliver',
    operationId: 'redeliver',
    tag: 'Webhooks',
    summary: 'Send a delivery again',
    scope: 'locations:read',
    request: { params: id('The delivery id') },
    responses: { 202: reply('Scheduled again.', json(SCHEMAS.DeliveryDetail, examples.exampleDeliveryDetail)) },
    errors: [...READ_ERRORS, 'CONFLICT'],
  },
  {
    method: 'get',
    path: '/webhooks/subscription',
    operationId: 'getSubscription',
    tag: 'Webhooks',
    summary: "The caller's webhook endpoint and the event types it receives",
    scope: 'locations:read',
    responses: { 200: reply('The endpoint.', json(SCHEMAS.Endpoint, examples.exampleEndpoint)) },
    errors: ['RESOURCE_NOT_FOUND'],
  },
  {
    method: 'put',
    path: '/webhooks/subscription',
    operationId: 'chooseEventTypes',
    tag: 'Webhooks',
    summary: 'Choose the event types to receive',
    scope: 'locations:read',
    request: { body: json(SCHEMAS.SubscriptionUpdate, { eventTypes: ['EXPORT_COMPLETED', 'EXPORT_FAILED'] }) },
    responses: { 200: reply('The endpoint.', json(SCHEMAS.Endpoint, examples.exampleEndpoint)) },
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR', 'RESOURCE_NOT_FOUND'],
  },

  // Operator
  {
    method: 'post',
    path: '/operator/locations',
    operationId: 'createLocation',
    tag: 'Operator',
    summary: 'Create a location',
    description:
      'The server chooses the id. With an Idempotency-Key, a request repeated with the same key and body (key order ' +
      'aside) by the same client within 24 hours answers the first 201 again (the location as created, ETag "1", ' +
      'header Idempotent-Replayed: true) and creates nothing; the same key with another body is 409 CONFLICT. The ' +
      'request that claimed a key gives it back when refused for its body and nothing was created.',
    scope: 'locations:write',
    request: {
      headers: idempotencyKey,
      body: locationInput,
    },
    responses: { 201: reply('Created.', location, ['ETag', 'Location', 'Idempotent-Replayed']) },
    errors: [...LOCATION_WRITE_ERRORS, 'CONFLICT'],
  },
  {
    method: 'get',
    path: '/operator/locations/{id}',
    operationId: 'getOperatorLocation',
    tag: 'Operator',
    summary: 'Get a location as written',
    scope: 'locations:write',
    request: { params: id('The location id') },
    responses: { 200: reply('The location.', location, ['ETag']) },
    errors: READ_ERRORS,
  },
  {
    method: 'put',
    path: '/operator/locations/{id}',
    operationId: 'replaceLocation',
    tag: 'Operator',
    summary: 'Create or replace a location at an id',
    scope: 'locations:write',
    request: { params: id('The location id'), headers: ifMatch, body: locationInput },
    responses: { 200: reply('Replaced.', location, ['ETag']), 201: reply('Created at this id.', location, ['ETag']) },
    errors: [...LOCATION_WRITE_ERRORS, 'PRECONDITION_FAILED'],
  },
  {
    method: 'patch',
    path: '/operator/locations/{id}',
    operationId: 'updateLocation',
    tag: 'Operator',
    summary: 'Change fields of a location (JSON Merge Patch)',
    description: 'Retire a location by setting its serviceability status to RETIRED.',
    scope: 'locations:write',
    request: {
      params: id('The location id'),
      headers: ifMatch,
      body: {
        schema: SCHEMAS.LocationPatch,
        example: { fiberAccessDetails: { serviceability: { status: 'RETIRED' } } },
        mediaType: 'application/merge-patch+json',
      },
    },
    responses: { 200: reply('The location after the change.', location, ['ETag']) },
    errors: [...LOCATION_WRITE_ERRORS, 'RESOURCE_NOT_FOUND', 'PRECONDITION_FAILED'],
  },
  {
    method: 'post',
    path: '/operator/imports',
    operationId: 'importLocations',
    tag: 'Operator',
    summary: 'Import locations from a file',
    description:
      'NDJSON (one Location per line, `id` required) or CSV (the export columns, with a header row), of any size, ' +
      'streamed. `mode=full-replace` retires the locations the file leaves out. Rows are applied in batches; a ' +
      'rejected row does not stop the import and is listed in the report. A file without rows is refused (400), as a ' +
      'full replace would retire every location. A full replace that would retire more than the configured share ' +
      '(IMPORT_MAX_RETIRE_SHARE, default 10 %) of the locations in service when it began retires nothing and ' +
      'answers 409 CONFLICT ' +
      'with the number (`details.wouldRetire`) unless `confirmRetirements` gives exactly that number; the rows are ' +
      'applied either way.',
    scope: 'locations:write',
    request: {
      query: z.object({
        mode: z.enum(IMPORT_MODES).optional().openapi({ description: 'merge (default) or full-replace.' }),
        confirmRetirements: z.coerce
          .number()
          .int()
          .min(0)
          .max(999_999_999_999_999)
          .optional()
          .openapi({
            description:
              'full-replace only: how many locations the import may retire, exactly (the number a 409 reply gave). ' +
              'Needed when that is more than the configured share of the locations in service.',
          }),
      }),
      body: [
        {
          schema: z.string().openapi({ description: 'NDJSON: one Location per line, `id` required.' }),
          example: examples.exampleImportNdjson,
          mediaType: IMPORT_MEDIA_TYPES.ndjson,
        },
        {
          schema: z.string().openapi({
            description:
              'CSV (RFC 4180): a header row naming the columns of the CSV export (`id` required, any others in any ' +
              'order), then one location per record.',
          }),
          example: examples.exampleImportCsv,
          mediaType: IMPORT_MEDIA_TYPES.csv,
        },
      ],
    },
    responses: { 200: reply('What the import did.', json(SCHEMAS.ImportReport, examples.exampleImportReport)) },
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR', 'CONFLICT'],
  },

  // Administration
  {
    method: 'post',
    path: '/admin/clients',
    operationId: 'registerClient',
    tag: 'Administration',
    summary: 'Register an API client',
    description: 'The reply holds the client secret (and an RSP’s webhook signing secret): shown this once only.',
    scope: 'auth:admin',
    request: {
      body: json(SCHEMAS.ApiClientRegistration, {
        name: examples.exampleClient.name,
        kind: 'RSP',
        webhookUrl: examples.exampleClient.webhookUrl,
      }),
    },
    responses: {
      201: reply('Registered.', json(SCHEMAS.RegisteredApiClient, examples.exampleRegisteredClient), [
        'Location',
        'Cache-Control',
      ]),
    },
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/admin/clients',
    operationId: 'listClients',
    tag: 'Administration',
    summary: 'List API clients',
    scope: 'auth:admin',
    request: { query: z.object(page) },
    responses: { 200: reply('A page of clients.', json(SCHEMAS.ApiClientList, examples.exampleClientList)) },
    errors: ['INVALID_LIMIT', 'INVALID_OFFSET'],
  },
  {
    method: 'get',
    path: '/admin/clients/{clientId}',
    operationId: 'getClient',
    tag: 'Administration',
    summary: 'Get an API client',
    scope: 'auth:admin',
    request: { params: clientId },
    responses: { 200: reply('The client (never a secret).', json(SCHEMAS.ApiClientView, examples.exampleClient)) },
    errors: READ_ERRORS,
  },
  {
    method: 'patch',
    path: '/admin/clients/{clientId}',
    operationId: 'updateClient',
    tag: 'Administration',
    summary: "Change a client's name, scopes or webhook URL",
    scope: 'auth:admin',
    request: {
      params: clientId,
      body: json(SCHEMAS.ApiClientUpdate, { webhookUrl: 'https://rsp.example.com/hooks/v2' }),
    },
    responses: { 200: reply('The client.', json(SCHEMAS.ApiClientView, examples.exampleClient)) },
    errors: [...READ_ERRORS, 'VALIDATION_ERROR'],
  },
  {
    method: 'post',
    path: '/admin/clients/{clientId}/rotate-secret',
    operationId: 'rotateClientSecret',
    tag: 'Administration',
    summary: 'Issue new secrets for a client (the old webhook secret still signs for a grace period)',
    scope: 'auth:admin',
    request: { params: clientId },
    responses: {
      200: reply('The new secrets, shown this once.', json(SCHEMAS.ApiClientSecrets, examples.exampleClientSecrets), [
        'Cache-Control',
      ]),
    },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/admin/clients/{clientId}/disable',
    operationId: 'disableClient',
    tag: 'Administration',
    summary: 'Disable a client: no new tokens, no webhooks',
    scope: 'auth:admin',
    request: { params: clientId },
    responses: {
      200: reply('The client.', json(SCHEMAS.ApiClientView, { ...examples.exampleClient, enabled: false })),
    },
    errors: READ_ERRORS,
  },
  {
    method: 'get',
    path: '/admin/webhooks/deliveries',
    operationId: 'listDeliveries',
    tag: 'Administration',
    summary: "Every client's webhook deliveries, newest first",
    scope: 'webhooks:admin',
    request: { query: z.object({ ...deliveryQuery, clientId: nonEmptyStringSchema.optional() }) },
    responses: { 200: reply('A page of deliveries.', json(SCHEMAS.DeliveryList, examples.exampleDeliveryList)) },
    errors: LIST_ERRORS,
  },
  {
    method: 'get',
    path: '/admin/webhooks/deliveries/{id}',
    operationId: 'getDelivery',
    tag: 'Administration',
    summary: 'One delivery with its attempts',
    scope: 'webhooks:admin',
    request: { params: id('The delivery id') },
    responses: { 200: reply('The delivery.', json(SCHEMAS.DeliveryDetail, examples.exampleDeliveryDetail)) },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/admin/webhooks/deliveries/{id}/redrive',
    operationId: 'redriveDelivery',
    tag: 'Administration',
    summary: 'Send a delivery again',
    scope: 'webhooks:admin',
    request: { params: id('The delivery id') },
    responses: { 202: reply('Scheduled again.', json(SCHEMAS.DeliveryDetail, examples.exampleDeliveryDetail)) },
    errors: [...READ_ERRORS, 'CONFLICT'],
  },
  {
    method: 'get',
    path: '/admin/webhooks/endpoints',
    operationId: 'listEndpoints',
    tag: 'Administration',
    summary: 'Every webhook endpoint and how it is doing',
    scope: 'webhooks:admin',
    responses: {
      200: reply('The endpoints.', json(SCHEMAS.EndpointList, { endpoints: [examples.exampleEndpoint] })),
    },
  },
  {
    method: 'get',
    path: '/admin/webhooks/endpoints/{clientId}',
    operationId: 'getEndpoint',
    tag: 'Administration',
    summary: "A client's webhook endpoint",
    scope: 'webhooks:admin',
    request: { params: clientId },
    responses: { 200: reply('The endpoint.', json(SCHEMAS.Endpoint, examples.exampleEndpoint)) },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/admin/webhooks/endpoints/{clientId}/redrive',
    operationId: 'redriveEndpoint',
    tag: 'Administration',
    summary: 'Send every DEAD delivery of a client created since a time again',
    scope: 'webhooks:admin',
    request: { params: clientId, body: json(SCHEMAS.RedriveRequest, { since: '2024-03-01T00:00:00Z' }) },
    responses: { 202: reply('How many were scheduled again.', json(SCHEMAS.RedriveReply, { redriven: 3 })) },
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR', 'RESOURCE_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/admin/webhooks/endpoints/{clientId}/enable',
    operationId: 'enableEndpoint',
    tag: 'Administration',
    summary: 'Enable an endpoint disabled after a 410 (or by an SRE)',
    scope: 'webhooks:admin',
    request: { params: clientId },
    responses: { 200: reply('The endpoint.', json(SCHEMAS.Endpoint, examples.exampleEndpoint)) },
    errors: READ_ERRORS,
  },
];

/** Headers every webhook request carries: Standard Webhooks signing. */
const signatureHeaders = {
  'webhook-id': uuidSchema.openapi({ description: 'The delivery id: the same on every retry of one delivery.' }),
  'webhook-timestamp': z
    .string()
    .regex(/^\d+$/)
    .openapi({ description: 'Unix seconds when this attempt was signed; refuse old ones (replays).' }),
  'webhook-signature': z.string().openapi({
    description:
      '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` keyed with the client’s `whsec_` ' +
      'secret (Standard Webhooks); after a rotation, one signature per secret, space-separated, for the grace period.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
};

const WEBHOOK_REPLIES = {
  200: { description: 'Received (any 2xx is).' },
  202: { description: 'Received (any 2xx is).' },
  400: { description: 'Refused: the delivery fails and is not retried.' },
  410: { description: 'Gone: the endpoint is disabled until an operator enables it.' },
  429: { description: 'Retried later, not before Retry-After.' },
  '4XX': {
    description: 'Any other 4xx (401 is counted as a credentials problem), or a 3xx (never followed): retried.',
  },
  '5XX': {
    description:
      'Any 5xx, a timeout or a connection error: retried with exponential backoff and jitter (503: not before ' +
      'Retry-After).',
  },
};

/** The tag of the webhooks: apart from the operations', since generators make one class per tag. */
export const WEBHOOK_TAG = 'Webhook events';

/** The requests an RSP's webhook endpoint receives (paths under the client's webhook URL). */
export const WEBHOOKS: RouteConfig[] = [
  {
    method: 'post',
    path: 'exportNotification',
    operationId: 'exportNotification',
    summary: 'POST {webhookUrl}/locations/exports/events: an export finished (COMPLETED) or failed (FAILED)',
    tags: [WEBHOOK_TAG],
    security: [],
    request: {
      headers: z.object(signatureHeaders),
      body: {
        content: {
          'application/json': { schema: SCHEMAS.ExportNotification, example: examples.exampleExportNotification },
        },
      },
    },
    responses: WEBHOOK_REPLIES,
  },
  {
    method: 'post',
    path: 'locationEvent',
    operationId: 'locationEvent',
    summary:
      'POST {webhookUrl}/locations/events: a location was created or changed (OAF-100), or a group was created, changed or deleted',
    tags: [WEBHOOK_TAG],
    security: [],
    request: {
      headers: z.object({
        ...signatureHeaders,
        [LOCATION_EVENT_HEADERS.eventId]: uuidSchema.openapi({ description: 'The event id; deduplicate on it.' }),
        [LOCATION_EVENT_HEADERS.eventType]: z.enum(CHANGE_EVENT_TYPES),
        [LOCATION_EVENT_HEADERS.eventTimestamp]: utcDateTimeSchema,
        [LOCATION_EVENT_HEADERS.eventSequence]: z
          .string()
          .regex(/^[1-9][0-9]*$/)
          .openapi({ description: "The location's or group's version after the event (the body's event.version)." }),
      }),
      body: {
        content: { 'application/json': { schema: SCHEMAS.LocationEvent, example: examples.exampleLocationEvent } },
      },
    },
    responses: WEBHOOK_REPLIES,
  },
];
