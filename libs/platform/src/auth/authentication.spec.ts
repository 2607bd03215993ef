import { Controller, Get, Module, Req } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest, InjectOptions } from 'fastify';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, type JWK, type KeyLike, SignJWT } from 'jose';
import type { RevocationList } from '@lx/contracts';
import { MetricsModule } from '../metrics/metrics';
import { createServiceApp } from '../http/service-app';
import { AuthenticationModule } from './authentication';
import { RequireScope } from './scope.guard';

const ISSUER = 'https://api.example.com';
const AUDIENCE = 'location-exchange-api';
const RSP_CLIENT = '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e';

@Controller('things')
class ThingsController {
  @Get()
  @RequireScope('locations:read')
  list(@Req() request: FastifyRequest) {
    return { principal: request.principal };
  }

  @Get('written')
  @RequireScope('locations:write')
  write() {
    return { ok: true };
  }

  @Get('undeclared')
  undeclared() {
    return { ok: true };
  }
}

describe('authentication before routing, against a JWKS', () => {
  let app: NestFastifyApplication;
  let jwksServer: Server;
  let signingKey: KeyLike;
  let otherKey: KeyLike;
  const inject = (options: InjectOptions) => app.getHttpAdapter().getInstance().inject(options);
  const get = (url: string, authorization?: string) =>
    inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });

  let jwksRequests = 0;
  /** What the fake auth service answers at /internal/revocations: a list, or a status without one. */
  let revocations: RevocationList | number = { clients: [], signingKeys: [] };
  let revocationRequests = 0;
  const waitForPolls = async (polls: number) => {
    const until = revocationRequests + polls;
    while (revocationRequests < until) await new Promise((resolve) => setTimeout(resolve, 20));
  };

  async function token(
    overrides: {
      iss?: string;
      aud?: string;
      exp?: number;
      iat?: number;
      nbf?: number;
      key?: KeyLike;
      kid?: string;
    } = {},
  ) {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ scope: 'locations:read' })
      .setProtectedHeader({ alg: 'ES256', kid: overrides.kid ?? 'key-1' })
      .setIssuer(overrides.iss ?? ISSUER)
      .setAudience(overrides.aud ?? AUDIENCE)
      .setSubject(RSP_CLIENT)
      .setJti('token-1')
      .setIssuedAt(overrides.iat ?? now - 10)
      .setExpirationTime(overrides.exp ?? now + 600);
    if (overrides.nbf !== undefined) jwt.setNotBefore(overrides.nbf);
    return jwt.sign(overrides.key ?? signingKey);
  }

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    signingKey = pair.privateKey;
    otherKey = (await generateKeyPair('ES256')).privateKey;
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
    jwksServer = createServer((request, response) => {
      if (request.url === '/internal/revocations') {
        revocationRequests += 1;
        if (typeof revocations === 'number') response.statusCode = revocations;
        response.setHeader('content-type', 'application/json');
        response.end(typeof revocations === 'number' ? '' : JSON.stringify(revocations));
        return;
      }
      jwksRequests += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    const address = jwksServer.address();
    const port = typeof address === 'object' && address ? address.port : 0;

    @Module({
      imports: [
        MetricsModule,
        AuthenticationModule.forRoot({
          config: {
            jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
            issuer: ISSUER,
            acceptedIssuers: [],
            audience: AUDIENCE,
            revocationsUrl: `http://127.0.0.1:${port}/internal/revocations`,
            revocationsRefreshMs: 100,
          },
        }),
      ],
      controllers: [ThingsController],
    })
    class TestModule {}

    app = await createServiceApp('test', TestModule, {
      host: '127.0.0.1',
      port: 1,
      bodyLimitBytes: 1024,
      requestTimeoutMs: 300_000,
      logLevel: 'silent',
    });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app.close();
    await new Promise((resolve) => jwksServer.close(resolve));
  });

  it('given a valid token, passes the request on with the principal it names', async () => {
    const response = await get('/things', `Bearer ${await token()}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      principal: {
        clientId: RSP_CLIENT,
        scopes: ['locations:read'],
        tokenId: 'token-1',
        issuedAt: expect.any(Number),
        signingKeyId: 'key-1',
      },
    });
  });

  it('given no Authorization header, answers 401 with a bare Bearer challenge', async () => {
    const response = await get('/things');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="location-exchange"');
    expect(response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing bearer token' } });
  });

  it('given another scheme, answers 401 invalid_request', async () => {
    const response = await get('/things', 'Basic cnNwOnNlY3JldA==');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="location-exchange", error="invalid_request", error_description="Authorization header is not \'Bearer <token>\'"',
    );
    expect(response.json().error.code).toBe('UNAUTHORIZED');
  });

  it.each([
    ['an expired token', () => token({ exp: Math.floor(Date.now() / 1000) - 60 }), 'The access token has expired'],
    ['a token of another issuer', () => token({ iss: 'someone-else' }), "The access token's iss claim is not accepted"],
    ['a token for another audience', () => token({ aud: 'other-api' }), "The access token's aud claim is not accepted"],
    ['a token signed by another key', () => token({ key: otherKey }), 'The access token signature is invalid'],
    [
      'a token naming an unknown key id',
      () => token({ kid: 'key-9' }),
      'The access token was signed by an unknown key',
    ],
    [
      'an unsigned token (alg none)',
      async () => {
        const [, payload] = (await token()).split('.');
        return `${Buffer.from('{"alg":"none","kid":"key-1"}').toString('base64url')}.${payload}.`;
      },
      'The access token algorithm is not accepted',
    ],
    ['garbage', async () => 'not.a.jwt', 'The access token is malformed or invalid'],
    [
      'a token that is not valid before a future time (nbf)',
      () => token({ nbf: Math.floor(Date.now() / 1000) + 120 }),
      'The access token is not yet valid',
    ],
    [
      'a token issued in the future (iat)',
      () => token({ iat: Math.floor(Date.now() / 1000) + 120 }),
      'The access token is not yet valid',
    ],
  ])('given %s, answers 401 invalid_token saying why', async (_, makeToken, reason) => {
    const response = await get('/things', `Bearer ${await makeToken()}`);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: reason } });
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="location-exchange", error="invalid_token", error_description="${reason.replace(/"/g, "'")}"`,
    );
  });

  it('given a malformed Bearer header, answers 401 invalid_request', async () => {
    const response = await get('/things', 'Bearer two parts');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_request"');
  });

  it('given a valid token without the scope the route needs, answers 403 FORBIDDEN with an insufficient_scope challenge', async () => {
    const response = await get('/things/written', `Bearer ${await token()}`);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: {
        code: 'FORBIDDEN',
        message: 'The access token lacks the scope locations:write this operation needs',
        details: { requiredScope: 'locations:write' },
      },
    });
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="location-exchange", error="insufficient_scope", error_description="The access token lacks the scope locations:write this operation needs", scope="locations:write"',
    );
  });

  it('denies by default: a route without @RequireScope answers 403 to any token', async () => {
    const response = await get('/things/undeclared', `Bearer ${await token()}`);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: { code: 'FORBIDDEN', message: 'This operation is not open to access tokens' },
    });
  });

  it('refetches the key set for an unknown key id at most once per cooldown', async () => {
    const before = jwksRequests;
    await get('/things', `Bearer ${await token({ kid: 'key-unknown-1' })}`);
    await get('/things', `Bearer ${await token({ kid: 'key-unknown-2' })}`);
    await get('/things', `Bearer ${await token({ kid: 'key-unknown-3' })}`);
    expect(jwksRequests - before).toBeLessThanOrEqual(1);
  });

  describe('revocations, polled from the auth service', () => {
    const CLIENT = RSP_CLIENT;
    afterEach(async () => {
      revocations = { clients: [], signingKeys: [] };
      await waitForPolls(2);
    });

    it("refuses a client's tokens issued before its cut-off within a poll, and keeps those issued at or after it", async () => {
      const now = Math.floor(Date.now() / 1000);
      const before = await token({ iat: now - 5 });
      const after = await token({ iat: now });
      expect((await get('/things', `Bearer ${before}`)).statusCode).toBe(200);

      revocations = { clients: [{ clientId: CLIENT, tokensIssuedBefore: now }], signingKeys: [] };
      await waitForPolls(2);
      const refused = await get('/things', `Bearer ${before}`);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'The access token has been revoked' } });
      expect(refused.headers['www-authenticate']).toBe(
        'Bearer realm="location-exchange", error="invalid_token", error_description="The access token has been revoked"',
      );
      expect((await get('/things', `Bearer ${after}`)).statusCode).toBe(200);
    });

    it('refuses every token of a revoked signing key', async () => {
      const valid = await token();
      revocations = { clients: [], signingKeys: ['key-1'] };
      await waitForPolls(2);
      const refused = await get('/things', `Bearer ${valid}`);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.message).toBe('The access token was signed by a revoked key');
    });

    it('keeps the last list in force while the auth service cannot answer, and counts the failed polls', async () => {
      const now = Math.floor(Date.now() / 1000);
      const before = await token({ iat: now - 5 });
      revocations = { clients: [{ clientId: CLIENT, tokensIssuedBefore: now }], signingKeys: [] };
      await waitForPolls(2);
      revocations = 503;
      await waitForPolls(2);
      expect((await get('/things', `Bearer ${before}`)).statusCode).toBe(401);
      const metrics = (await get('/metrics')).body;
      expect(metrics).toMatch(/^auth_revocations_refresh_failures_total [1-9]/m);
      expect(metrics).toMatch(/^auth_revocations_age_seconds \d/m);
    });
  });

  it('authenticates before routing: an unknown path is 401 without a token and 404 with one', async () => {
    expect((await get('/nowhere')).statusCode).toBe(401);
    expect((await get('/nowhere', `Bearer ${await token()}`)).statusCode).toBe(404);
  });

  it('serves health and metrics without a token', async () => {
    expect((await get('/metrics')).statusCode).toBe(200);
    expect((await get('/metrics?x=1')).statusCode).toBe(200);
  });
});
