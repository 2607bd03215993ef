import { z } from 'zod';
import { httpUrlSchema } from '../primitives';
import { CLIENT_CREDENTIALS_GRANT } from './oauth';
import { scopeSchema } from './scopes';

/**
 * Where the auth service publishes its metadata: the RFC 8414 section 3 location of an issuer without a path
 * (`<issuer>/.well-known/oauth-authorization-server`).
 */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/**
 * The same document at the location OpenID Connect Discovery uses, which RFC 8414 section 5 treats as a general OAuth
 * 2.0 one: where OIDC-first client libraries look by default (openid-client's `discovery()`). The auth service is not
 * an OpenID provider (no ID tokens, no authorization endpoint).
 */
export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';

/** How clients authenticate at the token endpoint (RFC 6749 section 2.3.1: HTTP Basic, or the form body). */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

/** An issuer identifier (RFC 8414 section 2): an absolute http(s) URL without query or fragment. */
export const issuerSchema = httpUrlSchema.refine((value) => !value.includes('?') && !value.includes('#'), {
  message: 'must not have a query or a fragment',
});

/**
 * OAuth 2.0 authorization server metadata (RFC 8414 section 2) as the auth service publishes it: only the
 * client-credentials grant, so no authorization endpoint and no response types (`response_types_supported` is
 * required by RFC 8414, hence empty rather than absent). Secret-based client authentication only, so no
 * `token_endpoint_auth_signing_alg_values_supported`.
 */
export const authorizationServerMetadataSchema = z
  .object({
    issuer: issuerSchema,
    token_endpoint: httpUrlSchema,
    /** The key set that verifies access tokens (RFC 7517). */
    jwks_uri: httpUrlSchema,
    grant_types_supported: z.array(z.literal(CLIENT_CREDENTIALS_GRANT)).min(1),
    token_endpoint_auth_methods_supported: z.array(z.enum(TOKEN_ENDPOINT_AUTH_METHODS)).min(1),
    scopes_supported: z.array(scopeSchema).min(1),
    response_types_supported: z.array(z.string()),
    /** Human-readable documentation for integrators, once it is published. */
    service_documentation: httpUrlSchema.optional(),
  })
  .strict();
/** Reply of GET /.well-known/oauth-authorization-server. */
export type AuthorizationServerMetadata = z.infer<typeof authorizationServerMetadataSchema>;
