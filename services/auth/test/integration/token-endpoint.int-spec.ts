import { decodeJwt, decodeProtectedHeader, createLocalJWKSet, jwtVerify } from 'jose';
import { ClientCredentials } from 'simple-oauth2';
import { randomUUID } from 'node:crypto';
import type { RegisteredClient } from '@lx/contracts';
import { SecretHasher } from '../../src/common/secret-hasher';
import { basic, form, FORM_TYPE, startAuth, type AuthUnderTest } from './support/auth-under-test';

/** The token endpoint as RFC 6749 sections 4.4, 5.1 and 5.2 describe it, against real Postgres and Kafka. */
describe('POST /oauth/token', () => {
  let auth: AuthUnderTest;
  let rsp: RegisteredClient;
  let operator: RegisteredClient;
  /** Takes the failed authentications, so the limit of 3 per window never throttles `rsp`. */
  let victim: RegisteredClient;

  const post = (body: string | undefined, headers: Record<string, string> = { 'content-type': FORM_TYPE }) =>
    fetch(`${auth.url}/oauth/token`, { method: 'POST', headers, body });

  const expectOAuthError = async (
    response: Response,
    status: number,
    error: string,
    description?: string | RegExp,
  ): Promise<void> => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    const body = (await response.json()) as { error: string; error_description: string };
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body.error).toBe(error);
    if (description !== undefined) expect(body.error_description).toMatch(description);
    if (status === 401)
      expect(response.headers.get('www-authenticate')).toBe('Basic realm="location-exchange", charset="UTF-8"');
    else expect(response.headers.get('www-authenticate')).toBeNull();
  };

  beforeAll(async () => {
    auth = await startAuth({
      TOKEN_FAILURE_LIMIT: '3',
      TOKEN_SOURCE_FAILURE_LIMIT: '10',
      TOKEN_FAILURE_WINDOW_SECONDS: '2',
      TOKEN_TTL_SECONDS: '900',
    });
    rsp = await auth.register({ name: 'Acme Fiber', kind: 'RSP', webhookUrl: 'https://hooks.acme.example/lx' });
    operator = await auth.register({ name: 'Operator systems', kind: 'OPERATOR' });
    victim = await auth.register({ name: 'Guessed at', kind: 'RSP' });
  }, 60_000);

  afterAll(() => auth?.close());

  describe('issuing', () => {
    it('issues a signed bearer token for client_id / client_secret in the body, as the spec shows', async () => {
      const response = await post(
        form({ grant_type: 'client_credentials', client_id: rsp.clientId, client_secret: rsp.clientSecret }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('pragma')).toBe('no-cache');
      const body: any = await response.json();
      expect(body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 900,
        scope: 'locations:read',
      });

      const header = decodeProtectedHeader(body.access_token);
      const claims = decodeJwt(body.access_token);
      expect(header).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'at+jwt' });
      expect(claims).toEqual({
        iss: auth.issuer,
        aud: 'location-exchange-api',
        sub: rsp.clientId,
        client_id: rsp.clientId,
        client_kind: 'RSP',
        scope: 'locations:read',
        iat: expect.any(Number),
        nbf: claims.iat,
        exp: claims.iat! + 900,
        jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });

      const jwks: any = await (await fetch(`${auth.url}/.well-known/jwks.json`)).json();
      await expect(jwtVerify(body.access_token, createLocalJWKSet(jwks))).resolves.toBeDefined();
    });

    it('authenticates with HTTP Basic (RFC 6749 section 2.3.1) and grants a requested subset of scopes', async () => {
      const response = await post(form({ grant_type: 'client_credentials', scope: 'locations:write' }), {
        'content-type': `${FORM_TYPE}; charset=UTF-8`,
        authorization: basic(operator.clientId, operator.clientSecret),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as any).scope).toBe('locations:write');
    });

    it('works unchanged with a maintained OAuth 2.0 client library (simple-oauth2, default configuration)', async () => {
      const client = new ClientCredentials({
        client: { id: rsp.clientId, secret: rsp.clientSecret },
        auth: { tokenHost: auth.url },
      });
      const accessToken = await client.getToken({ scope: 'locations:read' });
      expect(accessToken.token).toMatchObject({ token_type: 'Bearer', scope: 'locations:read', expires_in: 900 });
      expect(accessToken.expired()).toBe(false);

      const wrong = new ClientCredentials({
        client: { id: rsp.clientId, secret: 'not-the-secret' },
        auth: { tokenHost: auth.url },
      });
      const failure = await wrong.getToken({}).catch((error: unknown) => error);
      expect(failure).toMatchObject({
        output: { statusCode: 401 },
        data: { payload: { error: 'invalid_client', error_description: 'Client authentication failed' } },
      });
    });

    it('serves the JWKS (current and next key, public parts only) without a token, not to be cached in between', async () => {
      const response = await fetch(`${auth.url}/.well-known/jwks.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      const { keys }: any = await response.json();
      const publicKey = {
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: expect.any(String),
        alg: 'ES256',
        use: 'sig',
      };
      // The current key, and the next one, published ahead of the rotation that makes it current.
      expect(keys).toEqual([publicKey, publicKey]);
      expect(JSON.stringify(keys)).not.toMatch(/"d"/);
    });
  });

  describe('refusing, each the way RFC 6749 section 5.2 says', () => {
    const valid = () => ({
      grant_type: 'client_credentials',
      client_id: rsp.clientId,
      client_secret: rsp.clientSecret,
    });

    it.each([
      ['a wrong secret', () => form({ ...valid(), client_id: victim.clientId, client_secret: 'wrong-secret' })],
      ['an unknown client id', () => form({ ...valid(), client_id: '6f0a54f8-3a36-4d8a-9a0e-6f3d1b1a7c55' })],
      ['a client id that is not even a UUID', () => form({ ...valid(), client_id: 'acme' })],
      ['no client credentials at all', () => form({ grant_type: 'client_credentials' })],
      ['a client_id without client_secret', () => form({ grant_type: 'client_credentials', client_id: rsp.clientId })],
    ])('%s: 401 invalid_client with a Basic challenge', async (_, body) => {
      await expectOAuthError(await post(body()), 401, 'invalid_client', 'Client authentication failed');
    });

    it('wrong Basic credentials: 401 invalid_client with a Basic challenge', async () => {
      const response = await post(form({ grant_type: 'client_credentials' }), {
        'content-type': FORM_TYPE,
        authorization: basic(victim.clientId, 'wrong-secret'),
      });
      await expectOAuthError(response, 401, 'invalid_client');
    });

    it('another Authorization scheme: 401 invalid_client', async () => {
      const response = await post(form({ grant_type: 'client_credentials' }), {
        'content-type': FORM_TYPE,
        authorization: 'Bearer something',
      });
      await expectOAuthError(response, 401, 'invalid_client');
    });

    it('a disabled client with its right secret: 401 invalid_client', async () => {
      const client = await auth.register({ name: 'Soon gone', kind: 'RSP' });
      const disabled = await fetch(`${auth.url}/admin/clients/${client.clientId}/disable`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await auth.adminToken()}` },
      });
      expect(disabled.status).toBe(200);
      const response = await post(
        form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
      );
      await expectOAuthError(response, 401, 'invalid_client', 'Client authentication failed');
    });

    it('missing grant_type: 400 invalid_request', async () => {
      const { grant_type: _grant, ...rest } = valid();
      await expectOAuthError(await post(form(rest)), 400, 'invalid_request', 'grant_type is missing');
    });

    it.each(['password', 'authorization_code', 'refresh_token'])(
      'grant_type %s: 400 unsupported_grant_type',
      async (grantType) => {
        const response = await post(form({ ...valid(), grant_type: grantType }));
        await expectOAuthError(
          response,
          400,
          'unsupported_grant_type',
          'Only the client_credentials grant is supported',
        );
      },
    );

    it('a scope the client does not hold: 400 invalid_scope, not a silently narrowed token', async () => {
      const response = await post(form({ ...valid(), scope: 'locations:read locations:write' }));
      await expectOAuthError(response, 400, 'invalid_scope', 'The client may not request the scope locations:write');
    });

    it('an unknown scope: 400 invalid_scope', async () => {
      await expectOAuthError(await post(form({ ...valid(), scope: 'everything' })), 400, 'invalid_scope');
    });

    it('a repeated parameter: 400 invalid_request', async () => {
      const body = `${form(valid())}&grant_type=client_credentials`;
      await expectOAuthError(await post(body), 400, 'invalid_request', 'The parameter grant_type is repeated');
    });

    it('both Basic and body credentials: 400 invalid_request', async () => {
      const response = await post(form(valid()), {
        'content-type': FORM_TYPE,
        authorization: basic(rsp.clientId, rsp.clientSecret),
      });
      await expectOAuthError(response, 400, 'invalid_request', /not both/);
    });

    it.each([
      ['JSON', 'application/json', JSON.stringify({ grant_type: 'client_credentials' })],
      ['plain text', 'text/plain', 'grant_type=client_credentials'],
      ['multipart', 'multipart/form-data; boundary=x', '--x--'],
    ])('a %s body: 400 invalid_request naming the form content type', async (_, contentType, body) => {
      const response = await post(body, { 'content-type': contentType });
      await expectOAuthError(response, 400, 'invalid_request', `must have Content-Type ${FORM_TYPE}`);
    });

    it('no body and no content type: 400 invalid_request', async () => {
      await expectOAuthError(await post(undefined, {}), 400, 'invalid_request');
    });

    it('never answers 500 for any of these', async () => {
      const metrics = await (await fetch(`${auth.url}/metrics`)).text();
      expect(metrics).not.toMatch(/status_code="5\d\d"/);
    });
  });

  describe('throttling failures by source and by client id', () => {
    /** A token request from `source` (the test process is a trusted proxy: loopback), with `secret` for `clientId`. */
    const attempt = (clientId: string, secret: string, source: string) =>
      post(form({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }), {
        'content-type': FORM_TYPE,
        'x-forwarded-for': source,
      });
    const statuses = async (replies: Promise<Response>[]) =>
      Promise.all(replies.map(async (reply) => (await reply).status));

    it('answers 429 with Retry-After past the limit of a client id, from any new address, and lets the right secret in after the window', async () => {
      const client = await auth.register({ name: 'Throttled', kind: 'RSP' });
      for (let i = 0; i < 3; i += 1) expect((await attempt(client.clientId, 'wrong', '198.51.100.1')).status).toBe(401);

      const throttled = await attempt(client.clientId, 'wrong', '198.51.100.1');
      await expectOAuthError(throttled, 429, 'temporarily_unavailable', /Too many failed authentications/);
      const retryAfter = Number(throttled.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(2);
      // From an address it never authenticated from, even the right secret waits: else guesses spread over many
      // addresses would not be slowed.
      expect((await attempt(client.clientId, client.clientSecret, '198.51.100.2')).status).toBe(429);
      // Other clients are not affected.
      expect((await auth.token(rsp.clientId, rsp.clientSecret)).token_type).toBe('Bearer');

      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
      expect((await attempt(client.clientId, client.clientSecret, '198.51.100.2')).status).toBe(200);
      // A success clears the count: the next wrong secret is an ordinary 401, not a 429.
      expect((await attempt(client.clientId, 'wrong', '198.51.100.3')).status).toBe(401);
    });

    it('never locks the rightful client out where it has authenticated before, whatever others try for its id', async () => {
      const client = await auth.register({ name: 'Attacked', kind: 'RSP' });
      const home = '203.0.113.10';
      expect((await attempt(client.clientId, client.clientSecret, home)).status).toBe(200);

      // A third party spends every failure the client id has, and more, from elsewhere.
      const attacks = await statuses(
        ['192.0.2.1', '192.0.2.2', '192.0.2.3'].flatMap((source) =>
          Array.from({ length: 3 }, () => attempt(client.clientId, 'guess', source)),
        ),
      );
      expect(attacks.filter((status) => status === 429).length).toBeGreaterThan(0);
      expect((await attempt(client.clientId, 'guess', '192.0.2.4')).status).toBe(429);

      // At home the right secret goes straight through, again and again.
      for (let i = 0; i < 3; i += 1)
        expect((await attempt(client.clientId, client.clientSecret, home)).status).toBe(200);
      // Its own failures there are limited there like anyone's.
      for (let i = 0; i < 3; i += 1) expect((await attempt(client.clientId, 'typo', home)).status).toBe(401);
      expect((await attempt(client.clientId, 'typo', home)).status).toBe(429);
    });

    it('limits the failures of one address across client ids (TOKEN_SOURCE_FAILURE_LIMIT)', async () => {
      const source = '198.51.100.99';
      // Each made-up id fails once: only the address's own limit (10 here) can stop them.
      for (let i = 0; i < 10; i += 1) expect((await attempt(randomUUID(), 'guess', source)).status).toBe(401);
      await expectOAuthError(
        await attempt(randomUUID(), 'guess', source),
        429,
        'temporarily_unavailable',
        /from this address/,
      );
      // Even a real client trying from that address for the first time waits; from another address it goes on.
      expect((await attempt(operator.clientId, operator.clientSecret, source)).status).toBe(429);
      expect((await attempt(operator.clientId, operator.clientSecret, '198.51.100.98')).status).toBe(200);
    });

    it('holds the limit under a parallel burst: the limit of checks, every other attempt 429 without one', async () => {
      const client = await auth.register({ name: 'Burst', kind: 'RSP' });
      const hasher = auth.app.get(SecretHasher);
      const verify = jest.spyOn(hasher, 'verify');
      try {
        const burst = await statuses(
          Array.from({ length: 20 }, () => attempt(client.clientId, 'guess', '198.51.100.50')),
        );
        expect(burst.filter((status) => status === 401)).toHaveLength(3);
        expect(burst.filter((status) => status === 429)).toHaveLength(17);
        expect(verify).toHaveBeenCalledTimes(3);
      } finally {
        verify.mockRestore();
      }
    });

    it('delays a burst of right secrets past the limit by a second, not by a window', async () => {
      const client = await auth.register({ name: 'Busy', kind: 'RSP' });
      const home = '203.0.113.20';
      expect((await attempt(client.clientId, client.clientSecret, home)).status).toBe(200);
      const burst = await Promise.all(
        Array.from({ length: 12 }, () => attempt(client.clientId, client.clientSecret, home)),
      );
      const refused = burst.filter((reply) => reply.status === 429);
      expect(burst.filter((reply) => reply.status === 200).length).toBeGreaterThanOrEqual(3);
      for (const reply of refused) expect(reply.headers.get('retry-after')).toBe('1');
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      for (const _ of refused) expect((await attempt(client.clientId, client.clientSecret, home)).status).toBe(200);
    });

    it('checks an unknown or disabled client id against a hash as a wrong secret is checked, counted the same way', async () => {
      const hasher = auth.app.get(SecretHasher);
      const verify = jest.spyOn(hasher, 'verify');
      try {
        const unknown = randomUUID();
        expect((await attempt(unknown, 'guess', '198.51.100.60')).status).toBe(401);
        expect(verify).toHaveBeenCalledTimes(1);
        expect(await verify.mock.results[0]!.value).toBe(false);
        for (let i = 0; i < 2; i += 1) expect((await attempt(unknown, 'guess', '198.51.100.60')).status).toBe(401);
        await expectOAuthError(await attempt(unknown, 'guess', '198.51.100.60'), 429, 'temporarily_unavailable');
      } finally {
        verify.mockRestore();
      }
    });

    it('counts an X-Forwarded-For that is no address as the peer itself, so made-up values do not escape the limit', async () => {
      const made = Array.from({ length: 10 }, (_, i) => attempt(randomUUID(), 'guess', `made-up-${i}`));
      expect((await statuses(made)).filter((status) => status === 401)).toHaveLength(10);
      const next = await attempt(randomUUID(), 'guess', 'made-up-again');
      await expectOAuthError(next, 429, 'temporarily_unavailable', /from this address/);
      // The loopback peer's window ends before any other test of this file fails from it.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
    });
  });
});

describe('POST /oauth/token with TOKEN_SIGNING_ALGORITHM=EdDSA', () => {
  let auth: AuthUnderTest;

  beforeAll(async () => {
    auth = await startAuth({ TOKEN_SIGNING_ALGORITHM: 'EdDSA' });
  }, 60_000);

  afterAll(() => auth?.close());

  it('signs with Ed25519, publishes OKP keys, and accepts its own tokens', async () => {
    const token = await auth.adminToken();
    expect(decodeProtectedHeader(token).alg).toBe('EdDSA');
    const { keys }: any = await (await fetch(`${auth.url}/.well-known/jwks.json`)).json();
    expect(keys.map((key: any) => [key.kty, key.crv, key.alg])).toEqual([
      ['OKP', 'Ed25519', 'EdDSA'],
      ['OKP', 'Ed25519', 'EdDSA'],
    ]);
    const response = await fetch(`${auth.url}/admin/keys`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
  });
});
