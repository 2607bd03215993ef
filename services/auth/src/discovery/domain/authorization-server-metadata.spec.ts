import { authorizationServerMetadataSchema, validate } from '@lx/contracts';
import { authorizationServerMetadata } from './authorization-server-metadata';

const endpoints = { tokenPath: '/oauth/token', jwksPath: '/.well-known/jwks.json', documentationPath: '/docs' };

describe('authorizationServerMetadata', () => {
  it('given an issuer, when built, then it is the RFC 8414 document of a client-credentials-only server', () => {
    expect(authorizationServerMetadata('https://api.example.com', endpoints)).toEqual({
      issuer: 'https://api.example.com',
      token_endpoint: 'https://api.example.com/oauth/token',
      jwks_uri: 'https://api.example.com/.well-known/jwks.json',
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      // Not locations:internal: no client that discovers the server can hold it.
      scopes_supported: ['locations:read', 'locations:write', 'auth:admin', 'webhooks:admin'],
      response_types_supported: [],
      service_documentation: 'https://api.example.com/docs',
    });
  });

  it('given a local http issuer with a port, when built, then every URL is under it and the contract holds', () => {
    const issuer = 'http://127.0.0.1:18080';
    const metadata = authorizationServerMetadata(issuer, endpoints);
    expect(validate(authorizationServerMetadataSchema, metadata).ok).toBe(true);
    for (const url of [metadata.token_endpoint, metadata.jwks_uri, metadata.service_documentation!])
      expect(url.startsWith(`${issuer}/`)).toBe(true);
  });

  it('never advertises signing algorithms for client authentication', () => {
    const metadata = authorizationServerMetadata('https://api.example.com', endpoints);
    expect(metadata).not.toHaveProperty('token_endpoint_auth_signing_alg_values_supported');
  });
});
