import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { errorBody } from '../errors/error-body';
import { ERROR_CODES, type ErrorCode } from '../errors/error-codes';
import { ALL_SCOPES, type Scope } from '../auth/scopes';
import { z } from './extend-zod';
import type { HeaderName } from './headers';
import {
  API_OPERATIONS,
  type ApiOperation,
  type Body,
  mediaTypeOf,
  type Reply,
  requestBodies,
  SCHEMAS,
  WEBHOOK_TAG,
  WEBHOOKS,
} from './operations';
import { withSchemaReferences } from './references';

export type { HeaderName } from './headers';
export type { ApiTag } from './tags';

/** The OpenAPI document's type, as the generator returns it. */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/**
 * Paths the auth service serves the documents and their rendering at; public, like the key set. `rspDocument` is the
 * RSP's document: the operations an RSP calls and the webhooks it implements, without the operator's and the
 * administrators' operations.
 */
export const OPENAPI_PATHS = { document: '/openapi.json', rspDocument: '/openapi-rsp.json', docs: '/docs' } as const;

/** Who a document is for: everyone (every operation), or an RSP (public and `locations:read` operations only). */
export type OpenApiAudience = 'all' | 'rsp';

/** The scopes an RSP's client holds; an operation needing another is not in the RSP's document. */
const RSP_SCOPES: readonly Scope[] = ['locations:read'];

/** Whether an operation belongs in the RSP's document: a public one, or one an RSP's token may call. */
export const isRspOperation = (operation: ApiOperation): boolean =>
  operation.scope === null || RSP_SCOPES.includes(operation.scope);

/**
 * The schemas that no operation refers to, kept in every document all the same: the files a completed export's
 * exportUrl downloads, so that generated clients have their types.
 */
export const EXPORT_FILE_SCHEMAS = ['JsonExportFile', 'CsvExportRecord'] as const;

/** Name of the OAuth 2.0 security scheme of the document. */
const OAUTH = 'oauth2';

/** What every error reply of a status means, and the headers it carries beyond X-Request-Id. */
const STATUS_HEADERS: Partial<Record<number, string[]>> = {
  401: ['WWW-Authenticate'],
  429: ['Retry-After'],
  503: ['Retry-After'],
};

/** The fields of a rate-limited operation's replies (draft-ietf-httpapi-ratelimit-headers). */
const RATE_LIMIT_HEADERS: readonly HeaderName[] = ['RateLimit-Policy', 'RateLimit'];
/** Statuses answered before a request is counted (authentication, scope, the ingress): without the RateLimit fields. */
const BEFORE_RATE_LIMIT: readonly number[] = [401, 403, 414];

interface HeaderSpec {
  [extension: `x-${string}`]: unknown;
  description: string;
  schema: { type: 'string' | 'integer'; pattern?: string; minimum?: number; enum?: string[] };
}

const HEADERS: Record<HeaderName, HeaderSpec> = {
  'X-Request-Id': {
    description:
      'The request id: the X-Request-Id the caller sent (1 to 128 letters, digits and `._:-`), or one the service made. ' +
      'Every log line about the request carries it; quote it to the operator.',
    schema: { type: 'string' },
  },
  ETag: {
    description:
      'The resource version as a strong entity tag, `"<version>"`: send it in If-Match to write only over it.',
    schema: { type: 'string', pattern: '^"\\d+"$' },
  },
  Location: { description: 'Where the created resource is read.', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
  'WWW-Authenticate': {
    description: 'The bearer challenge (RFC 6750), with `error="invalid_token"` when a token was sent but refused.',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: '`true` when the reply repeats the one given to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Cache-Control': { description: 'How long the reply may be cached.', schema: { type: 'string' } },
  'RateLimit-Policy': {
    description:
      'The caller\'s quota (IETF RateLimit fields): `"<kind>";q=<requests>;w=<seconds>`, the policy of its client ' +
      'kind, e.g. `"rsp";q=1000;w=10`.',
    schema: { type: 'string', pattern: '^"[a-z]+";q=\\d+;w=\\d+$' },
  },
  RateLimit: {
    description:
      'What is left of the quota after this request (`r`) and the seconds until it is back (`t`: with requests left, until ' +
      'the window under way ends; with none, until the next request would be admitted), ' +
      'e.g. `"rsp";r=998;t=7`. Counted over a sliding window across every replica; past the quota, 429 with Retry-After.',
    schema: { type: 'string', pattern: '^"[a-z]+";r=\\d+;t=\\d+$' },
  },
};

const headerRefs = (names: readonly string[]) =>
  Object.fromEntries(['X-Request-Id', ...names].map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** The `content` of a request or reply: each body under its media type, with its own schema and example. */
function content(bodies: readonly Body[]) {
  const entries = bodies.map((body) => [mediaTypeOf(body), { schema: body.schema, example: body.example }] as const);
  const mediaTypes = entries.map(([mediaType]) => mediaType);
  const repeated = mediaTypes.filter((mediaType, index) => mediaTypes.indexOf(mediaType) !== index);
  if (repeated.length > 0) throw new Error(`a body media type repeats: ${repeated.join(', ')}`);
  return Object.fromEntries(entries);
}

function successResponse(reply: Reply, extraHeaders: readonly string[]) {
  return {
    description: reply.description,
    headers: headerRefs([...(reply.headers ?? []), ...extraHeaders]),
    ...(reply.body === undefined ? {} : { content: content([reply.body]) }),
  };
}

/**
 * One response per status the codes travel with, with every code as a named example; `rateLimited`: those answered
 * after the request was counted carry the RateLimit fields too.
 */
function errorResponses(codes: readonly ErrorCode[], rateLimited: boolean) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code].httpStatus ?? 500;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]) => [
      status,
      {
        description: statusCodes.map((code) => `\`${code}\`: ${ERROR_CODES[code].description}.`).join(' '),
        headers: headerRefs([
          ...(STATUS_HEADERS[status] ?? []),
          ...(rateLimited && !BEFORE_RATE_LIMIT.includes(status) ? RATE_LIMIT_HEADERS : []),
        ]),
        content: {
          'application/json': {
            schema: SCHEMAS.ErrorBody,
            examples: Object.fromEntries(
              statusCodes.map((code) => [code, { value: errorBody(code, ERROR_CODES[code].description) }]),
            ),
          },
        },
      },
    ]),
  );
}

/**
 * Codes every operation can answer: 414 (a request line over the ingress's limit, or a path segment over the
 * services'), 500 and 503; with a bearer token also 401 and, for a missing scope, 403; with a body 413, 415 and 408
 * (the body not received within the service's deadline).
 */
function commonErrors(operation: ApiOperation): ErrorCode[] {
  const auth: ErrorCode[] = operation.scope === null ? [] : ['UNAUTHORIZED', 'FORBIDDEN'];
  const body: ErrorCode[] =
    requestBodies(operation).length === 0 ? [] : ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'REQUEST_TIMEOUT'];
  return [...auth, ...body, 'URI_TOO_LONG', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
}

function route(operation: ApiOperation): RouteConfig {
  const { request } = operation;
  const bodies = requestBodies(operation);
  const rateLimited = operation.rateLimited === true;
  const errors: ErrorCode[] = [
    ...new Set([
      ...(operation.errors ?? []),
      ...commonErrors(operation),
      ...(rateLimited ? (['RATE_LIMIT_EXCEEDED'] as const) : []),
    ]),
  ];
  const responses = {
    ...Object.fromEntries(
      Object.entries(operation.responses).map(([status, reply]) => [
        status,
        successResponse(reply, rateLimited ? RATE_LIMIT_HEADERS : []),
      ]),
    ),
    ...errorResponses(errors, rateLimited),
  };
  const scopeNote = operation.scope === null ? 'Public: no token.' : `Scope \`${operation.scope}\`.`;
  return {
    method: operation.method,
    path: operation.path,
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: [operation.description, scopeNote].filter((text) => text !== undefined).join('\n\n'),
    security: operation.scope === null ? [] : [{ [OAUTH]: [operation.scope] }],
    request: {
      ...(request?.params === undefined ? {} : { params: request.params }),
      ...(request?.query === undefined ? {} : { query: request.query }),
      ...(request?.headers === undefined ? {} : { headers: request.headers }),
      ...(bodies.length === 0
        ? {}
        : { body: { required: bodies.every((body) => body.required ?? true), content: content(bodies) } }),
    },
    responses,
  };
}

/**
 * The version of the API the document describes. The spec has no version marker in paths, headers or bodies, so it
 * appears here only: additive changes raise the minor, a breaking one the major.
 */
export const API_VERSION = '1.0.0';

/** What the document states about the deployment it describes. */
export interface OpenApiDocumentOptions {
  /** The public base URL of the API (the token issuer): the document's server and the token URL's base. */
  serverUrl: string;
  /** `all` (the default) or `rsp`: see OpenApiAudience. */
  audience?: OpenApiAudience;
}

/**
 * The OpenAPI 3.1 document of the public API, generated from the contracts' zod schemas: every operation of the spec,
 * this project's documented extensions and the operator API, the OAuth 2.0 client-credentials scheme, and the webhooks
 * an RSP implements. Internal paths (/internal/*, /admin/keys, /health/*, /metrics) are not in it: the ingress never
 * routes them. For an RSP (`audience: 'rsp'`), only the operations an RSP calls, and the schemas, scopes and tags they
 * use. Either way, copies of named schemas are references (references.ts).
 */
export function openApiDocument(options: OpenApiDocumentOptions): OpenApiDocument {
  const rsp = options.audience === 'rsp';
  const operations = rsp ? API_OPERATIONS.filter(isRspOperation) : API_OPERATIONS;
  const registry = new OpenAPIRegistry();
  for (const [name, schema] of Object.entries(SCHEMAS)) registry.register(name, schema as z.ZodTypeAny);
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent('headers', name, header);
  const usedScopes = new Set(operations.map((operation) => operation.scope));
  const scopes = Object.fromEntries(
    ALL_SCOPES.filter((scope) => !rsp || usedScopes.has(scope)).map((scope: Scope) => [
      scope,
      SCOPE_DESCRIPTIONS[scope],
    ]),
  );
  registry.registerComponent('securitySchemes', OAUTH, {
    type: 'oauth2',
    description:
      'OAuth 2.0 client credentials (RFC 6749 section 4.4). The operator registers each client and gives it an id ' +
      'and a secret; the token endpoint takes them by HTTP Basic or in the form. Send the token as ' +
      '`Authorization: Bearer <token>`. Metadata: /.well-known/oauth-authorization-server (RFC 8414).',
    flows: { clientCredentials: { tokenUrl: `${options.serverUrl}/oauth/token`, scopes } },
  });
  for (const operation of operations) registry.registerPath(route(operation));
  for (const webhook of WEBHOOKS) registry.registerWebhook(webhook);

  const usedTags = new Set([...operations.map((operation) => operation.tag), WEBHOOK_TAG]);
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: rsp ? 'Location Exchange API for retail service providers' : 'Location Exchange API',
      version: API_VERSION,
      description: rsp ? RSP_DESCRIPTION : DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: options.serverUrl }],
    tags: TAGS.filter((tag) => usedTags.has(tag.name)),
  });
  const referenced = withSchemaReferences(document);
  return rsp ? withoutUnusedSchemas(referenced, EXPORT_FILE_SCHEMAS) : referenced;
}

/** The document without the schemas and headers that nothing in it refers to (but `keep` and what they refer to). */
function withoutUnusedSchemas(document: OpenApiDocument, keep: readonly string[]): OpenApiDocument {
  const components = document.components ?? {};
  const used = { schemas: new Set<string>(keep), headers: new Set<string>() };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      const match =
        key === '$ref' && typeof value === 'string' && /^#\/components\/(schemas|headers)\/(.+)$/.exec(value);
      if (match) {
        const kind = match[1] as 'schemas' | 'headers';
        if (!used[kind].has(match[2]!)) {
          used[kind].add(match[2]!);
          visit(components[kind]?.[match[2]!]);
        }
      } else visit(value);
    }
  };
  visit({ ...document, components: { ...components, schemas: {}, headers: {} } });
  for (const name of keep) visit(components.schemas?.[name]);
  const pick = <T>(entries: Record<string, T> | undefined, names: Set<string>) =>
    Object.fromEntries(Object.entries(entries ?? {}).filter(([name]) => names.has(name)));
  return {
    ...document,
    components: {
      ...components,
      schemas: pick(components.schemas, used.schemas),
      headers: pick(components.headers, used.headers),
    },
  };
}

const DESCRIPTION =
  'Fiber coverage locations for retail service providers: reads, statistics, bulk exports, webhooks. The operator publishes its coverage locations; each retail service provider (RSP) keeps an exact copy. ' +
  'RSPs read locations and groups by id, compare daily counts with `/locations/statistics`, download bulk ' +
  'exports, and receive webhooks (`webhooks` below) when exports finish and locations change. The operator ' +
  'writes under `/operator`; administrators manage clients under `/admin`. Every error reply has the shape ' +
  '`{ "error": { "code", "message", "details"? } }` except the token endpoint, which answers RFC 6749 errors. ' +
  `An RSP generates its client from ${OPENAPI_PATHS.rspDocument}: this document without the operator's and the ` +
  "administrators' operations.";

const RSP_DESCRIPTION =
  "Fiber coverage locations for retail service providers (RSPs): each RSP keeps an exact copy of the operator's " +
  'coverage locations. Read locations and groups by id, compare daily counts with `/locations/statistics`, ' +
  'download bulk exports, and receive webhooks (`webhooks` below) when exports finish and locations change. Every ' +
  'error reply has the shape `{ "error": { "code", "message", "details"? } }` except the token endpoint, which ' +
  `answers RFC 6749 errors. The operator's and administrators' operations are in ${OPENAPI_PATHS.document}.`;

const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'locations:read': 'RSP reads: locations, groups, statistics, exports, its own webhook deliveries',
  'locations:write': "The operator's writes: locations, groups, imports",
  'auth:admin': 'Administration of API clients',
  'webhooks:admin': "Operations of webhook delivery: every client's deliveries, redrives, endpoints",
  'locations:internal': "The internal services' own client only (endpoints not routed by the ingress); never granted",
};

const TAGS = [
  { name: 'Authentication', description: 'Tokens and the metadata OAuth client libraries discover.' },
  { name: 'Locations', description: 'Locations by id and by group (RSP).' },
  { name: 'Groups', description: 'Location groups and address groups (MDUs) (RSP).' },
  { name: 'Statistics', description: 'Counts for the daily check of a copy (RSP).' },
  { name: 'Exports', description: 'Asynchronous bulk exports to signed download URLs (RSP).' },
  { name: 'Webhooks', description: "The RSP's own deliveries and the event types it receives." },
  { name: 'Operator', description: "The operator's write API." },
  { name: 'Administration', description: 'API clients and webhook operations.' },
  { name: 'Documentation', description: 'This document.' },
  {
    name: WEBHOOK_TAG,
    description:
      "The requests the operator sends to an RSP's webhook endpoint: an RSP implements them (see `webhooks`), it " +
      'does not call them.',
  },
];
