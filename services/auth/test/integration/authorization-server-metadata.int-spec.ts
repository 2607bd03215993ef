import { randomUUID } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import {
  REGISTRABLE_SCOPES,
  AUTHORIZATION_SERVER_METADATA_PATH,
  type AuthorizationServerMetadata,
  authorizationServerMetadataSchema,
  OPENID_CONFIGURATION_PATH,
  validate,
} from '@lx/contracts';
import { SigningKeyStore } from '../../src/keys/infrastructure/signing-key.store';
import { startAuth, type AuthUnderTest } from './support/auth-under-test';

/** The API's public base URL: where the ingress would serve it, not where this auth service listens. */
const ISSUER = 'https://api.lx.test';
const FORMER_ISSUER = 'location-exchange';

/** Members of RFC 8414 section 2 whose values are URLs. */
const URL_MEMBERS = ['issuer', 'token_endpoint', 'jwks_uri', 'service_documentation'] as const;

describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  let auth: AuthUnderTest;
  let metadata: AuthorizationServerMetadata;

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${auth.url}${path}`, { headers });

  beforeAll(async () => {
    // Written with a trailing slash, as an operator may: the issuer is the canonical form everywhere.
    auth = await startAuth({ AUTH_ISSUER: `${ISSUER}/`, AUTH_ACCEPTED_ISSUERS: FORMER_ISSUER });
    metadata = (await (await get(AUTHORIZATION_SERVER_METADATA_PATH)).json()) as AuthorizationServerMetadata;
  }, 60_000);

  afterAll(async () => {
    await auth?.close();
  });

  it('is public and cacheable JSON that follows the contract', async () => {
    const response = await get(AUTHORIZATION_SERVER_METADATA_PATH);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    const body: unknown = await response.json();
    expect(validate(authorizationServerMetadataSchema, body)).toEqual({ ok: true, value: body });
  });

  it('holds the members RFC 8414 requires, with every URL absolute and under the issuer', () => {
    expect(metadata.issuer).toBe(ISSUER);
    expect(metadata.response_types_supported).toEqual([]);
    expect(metadata).toMatchObject({
      token_endpoint: `${ISSUER}/oauth/token`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: [...REGISTRABLE_SCOPES],
      service_documentation: `${ISSUER}/docs`,
    });
    for (const member of URL_MEMBERS.filter((name) => name !== 'issuer' && metadata[name] !== undefined)) {
      const url = new URL(metadata[member]!);
      expect(url.origin).toBe(ISSUER);
      expect(url.href.startsWith(`${ISSUER}/`)).toBe(true);
    }
    // Secret-based client authentication only.
    expect(metadata).not.toHaveProperty('token_endpoint_auth_signing_alg_values_supported');
  });

  it('names the issuer that the tokens the service issues carry', async () => {
    const rsp = await auth.register({ name: 'Discovery Fiber', kind: 'RSP' });
    const { access_token: token } = await auth.token(rsp.clientId, rsp.clientSecret);
    expect(decodeJwt(token).iss).toBe(metadata.issuer);
  });

  it('names endpoints the service answers at those paths', async () => {
    const token = await fetch(`${auth.url}${new URL(metadata.token_endpoint).pathname}`, { method: 'POST' });
    expect(token.status).toBe(400);
    expect(await token.json()).toMatchObject({ error: 'invalid_request' });
    const jwks = await get(new URL(metadata.jwks_uri).pathname);
    expect(jwks.status).toBe(200);
    expect(((await jwks.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
  });

  it('serves the same document where OpenID Connect Discovery looks (RFC 8414 section 5)', async () => {
    const response = await get(OPENID_CONFIGURATION_PATH);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await response.json()).toEqual(metadata);
  });

  it('ignores a bad bearer token on it, and only its exact paths are public', async () => {
    expect((await get(AUTHORIZATION_SERVER_METADATA_PATH, { authorization: 'Bearer not-a-token' })).status).toBe(200);
    expect((await get(`${AUTHORIZATION_SERVER_METADATA_PATH}/other`)).status).toBe(401);
    expect((await get('/.well-known/other')).status).toBe(401);
  });

  describe('moving from the former issuer name', () => {
    /** An admin token signed with the service's current key, differing only in its issuer. */
    async function adminToken(iss: string): Promise<string> {
      const signer = await auth.app.get(SigningKeyStore).signer();
      return new SignJWT({ scope: 'auth:admin', client_id: auth.admin.clientId })
        .setProtectedHeader({ alg: signer.algorithm, kid: signer.kid, typ: 'at+jwt' })
        .setIssuer(iss)
        .setAudience('location-exchange-api')
        .setSubject(auth.admin.clientId)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(signer.privateKey);
    }
    const listClients = async (iss: string) =>
      get('/admin/clients', { authorization: `Bearer ${await adminToken(iss)}` });

    it('accepts tokens of the former issuer while AUTH_ACCEPTED_ISSUERS lists it, and of the new one', async () => {
      expect((await listClients(FORMER_ISSUER)).status).toBe(200);
      expect((await listClients(ISSUER)).status).toBe(200);
    });

    it('refuses a token of any other issuer', async () => {
      const response = await listClients('https://someone-else.example');
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: { code: 'UNAUTHORIZED', message: "The access token's iss claim is not accepted" },
      });
    });
  });
});
