import { randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  authorizationServerMetadataSchema,
  type RegisteredClient,
  SCOPES,
  validate,
} from '@lx/contracts';
import { requireEnv } from '@lx/testing';

/** The claims of a JWT, read without verifying it (the API verifies; the test only compares `iss`). */
const claimsOf = (jwt: string): { iss?: string } =>
  JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: string };

/**
 * An RSP integrating as the OAuth libraries' documentation shows: nothing configured but BASE_URL and its client
 * credentials; the token endpoint comes from the authorization server metadata (RFC 8414).
 */
describe('OAuth discovery at BASE_URL', () => {
  const baseUrl = requireEnv('BASE_URL');
  const issuer = new URL(baseUrl);
  const insecure = issuer.protocol === 'http:';
  let adminToken: string;
  let rsp: RegisteredClient;

  const statisticsWith = async (accessToken: string) =>
    (await fetch(`${baseUrl}/locations/statistics`, { headers: { authorization: `Bearer ${accessToken}` } })).status;

  beforeAll(async () => {
    const tokenReply = await fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: requireEnv('ADMIN_CLIENT_ID'),
        client_secret: requireEnv('ADMIN_CLIENT_SECRET'),
      }),
    });
    expect(tokenReply.status).toBe(200);
    adminToken = ((await tokenReply.json()) as { access_token: string }).access_token;

    const registration = await fetch(`${baseUrl}/admin/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `e2e discovery ${randomUUID()}`, kind: 'RSP', scopes: [SCOPES.locationsRead] }),
    });
    expect(registration.status).toBe(201);
    rsp = (await registration.json()) as RegisteredClient;
  });

  afterAll(async () => {
    // Leave no working credentials behind in a stack that outlives the run.
    if (rsp !== undefined) {
      await fetch(`${baseUrl}/admin/clients/${rsp.clientId}/disable`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}` },
      });
    }
  });

  it('publishes the metadata of the issuer BASE_URL at its RFC 8414 location, public and cacheable', async () => {
    const response = await fetch(`${baseUrl}${AUTHORIZATION_SERVER_METADATA_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const body: unknown = await response.json();
    const metadata = validate(authorizationServerMetadataSchema, body);
    if (!metadata.ok) throw new Error(`not RFC 8414 metadata: ${JSON.stringify(metadata.issues)}`);
    expect(metadata.value.issuer).toBe(issuer.origin);
    expect(metadata.value.token_endpoint).toBe(`${issuer.origin}/oauth/token`);
    expect(metadata.value.jwks_uri).toBe(`${issuer.origin}/.well-known/jwks.json`);
  });

  it.each([
    ['its default discovery (the OpenID Connect Discovery location)', undefined],
    ['RFC 8414 discovery', 'oauth2' as const],
  ])('openid-client, with %s, gets a token the API accepts', async (_, algorithm) => {
    const config = await client.discovery(issuer, rsp.clientId, rsp.clientSecret, undefined, {
      execute: insecure ? [client.allowInsecureRequests] : [],
      algorithm,
    });
    expect(config.serverMetadata().token_endpoint).toBe(`${issuer.origin}/oauth/token`);

    const tokens = await client.clientCredentialsGrant(config, { scope: SCOPES.locationsRead });

    expect(tokens.scope).toBe(SCOPES.locationsRead);
    expect(claimsOf(tokens.access_token).iss).toBe(config.serverMetadata().issuer);
    expect(await statisticsWith(tokens.access_token)).toBe(200);
  });

  it('oauth4webapi, with RFC 8414 discovery and HTTP Basic client authentication, gets a token the API accepts', async () => {
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: insecure }),
    );
    const rspClient: oauth.Client = { client_id: rsp.clientId };

    const response = await oauth.clientCredentialsGrantRequest(
      as,
      rspClient,
      oauth.ClientSecretBasic(rsp.clientSecret),
      new URLSearchParams({ scope: SCOPES.locationsRead }),
      { [oauth.allowInsecureRequests]: insecure },
    );
    const tokens = await oauth.processClientCredentialsResponse(as, rspClient, response);

    expect(tokens.scope).toBe(SCOPES.locationsRead);
    expect(claimsOf(tokens.access_token).iss).toBe(as.issuer);
    expect(await statisticsWith(tokens.access_token)).toBe(200);
  });
});
