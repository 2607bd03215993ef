// The public operations the auth service serves: tokens, the metadata OAuth client libraries discover, this document.
import * as examples from '../examples';
import { z } from '../extend-zod';
import type { ApiOperation } from './api-operation';
import { json, reply } from './common';
import { SCHEMAS } from './schemas';

export const AUTH_OPERATIONS: ApiOperation[] = [
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
];
