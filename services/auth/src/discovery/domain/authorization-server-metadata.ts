import {
  REGISTRABLE_SCOPES,
  type AuthorizationServerMetadata,
  CLIENT_CREDENTIALS_GRANT,
  TOKEN_ENDPOINT_AUTH_METHODS,
} from '@lx/contracts';

/** The auth service's endpoints, as paths below the issuer. */
export interface AuthorizationServerEndpoints {
  tokenPath: string;
  jwksPath: string;
  /** The API reference for people (the rendered OpenAPI document). */
  documentationPath: string;
}

/**
 * The RFC 8414 metadata of the auth service. Every URL in it is built from `issuer` (the API's public base URL, an
 * origin), the same value the tokens carry as `iss`, so the document agrees with its own location and with the
 * tokens (RFC 8414 section 3.3).
 */
export function authorizationServerMetadata(
  issuer: string,
  endpoints: AuthorizationServerEndpoints,
): AuthorizationServerMetadata {
  const under = (path: string) => new URL(path, issuer).href;
  return {
    issuer,
    token_endpoint: under(endpoints.tokenPath),
    jwks_uri: under(endpoints.jwksPath),
    grant_types_supported: [CLIENT_CREDENTIALS_GRANT],
    token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    scopes_supported: [...REGISTRABLE_SCOPES],
    // Required by RFC 8414 even without an authorization endpoint: no response type is supported.
    response_types_supported: [],
    service_documentation: under(endpoints.documentationPath),
  };
}
