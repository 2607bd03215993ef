import { issuesOf } from '../testing/fixtures';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  type AuthorizationServerMetadata,
  authorizationServerMetadataSchema,
  OPENID_CONFIGURATION_PATH,
} from './authorization-server-metadata';

const metadata: AuthorizationServerMetadata = {
  issuer: 'https://api.example.com',
  token_endpoint: 'https://api.example.com/oauth/token',
  jwks_uri: 'https://api.example.com/.well-known/jwks.json',
  grant_types_supported: ['client_credentials'],
  token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  scopes_supported: ['locations:read', 'locations:write', 'auth:admin', 'webhooks:admin'],
  response_types_supported: [],
};

describe('authorization server metadata contract (RFC 8414)', () => {
  it('given the document the auth service publishes, when validated, then it is accepted', () => {
    expect(issuesOf(authorizationServerMetadataSchema, metadata)).toEqual([]);
  });

  it.each(['issuer', 'token_endpoint', 'jwks_uri', 'response_types_supported', 'grant_types_supported'])(
    'given no %s, when validated, then it is refused (required)',
    (member) => {
      const { [member as keyof AuthorizationServerMetadata]: _, ...rest } = metadata;
      expect(issuesOf(authorizationServerMetadataSchema, rest)).toHaveLength(1);
    },
  );

  it.each(['https://api.example.com?tenant=1', 'https://api.example.com#x', 'api.example.com'])(
    'given the issuer %s, when validated, then it is refused',
    (issuer) => {
      expect(issuesOf(authorizationServerMetadataSchema, { ...metadata, issuer })).toHaveLength(1);
    },
  );

  it.each(['https://api.example.com?tenant=1', 'https://api.example.com/#x'])(
    'given the issuer %s, when validated, then the issue names the query or fragment',
    (issuer) => {
      expect(issuesOf(authorizationServerMetadataSchema, { ...metadata, issuer })).toEqual([
        { field: 'issuer', rule: 'custom', message: 'issuer is invalid: must not have a query or a fragment' },
      ]);
    },
  );

  it.each(['grant_types_supported', 'token_endpoint_auth_methods_supported', 'scopes_supported'])(
    'given an empty %s, when validated, then at least one entry is asked for',
    (member) => {
      expect(issuesOf(authorizationServerMetadataSchema, { ...metadata, [member]: [] })).toEqual([
        { field: member, rule: 'min', message: `${member} must contain at least 1 item` },
      ]);
    },
  );

  it('given the well-known locations, when read, then they are those of RFC 8414 section 3 and OIDC Discovery', () => {
    expect(AUTHORIZATION_SERVER_METADATA_PATH).toBe('/.well-known/oauth-authorization-server');
    expect(OPENID_CONFIGURATION_PATH).toBe('/.well-known/openid-configuration');
  });

  it('given a signing-algorithm list for JWT client authentication, when validated, then it is refused (secrets only)', () => {
    expect(
      issuesOf(authorizationServerMetadataSchema, {
        ...metadata,
        token_endpoint_auth_signing_alg_values_supported: ['ES256'],
      }),
    ).toHaveLength(1);
  });

  it('given a grant or scope the server does not have, when validated, then it is refused', () => {
    expect(
      issuesOf(authorizationServerMetadataSchema, { ...metadata, grant_types_supported: ['authorization_code'] }),
    ).toHaveLength(1);
    expect(issuesOf(authorizationServerMetadataSchema, { ...metadata, scopes_supported: ['openid'] })).toHaveLength(1);
  });
});
