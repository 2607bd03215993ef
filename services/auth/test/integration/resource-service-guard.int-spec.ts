import { decodeJwt, decodeProtectedHeader, generateKeyPair, type KeyLike, SignJWT } from 'jose';
import { ClientCredentials } from 'simple-oauth2';
import { runCli } from '../../src/cli/auth-cli';
import { SigningKeyStore } from '../../src/keys/infrastructure/signing-key.store';
import { startAuth, type AuthUnderTest } from './support/auth-under-test';
import { type ResourceService, startResourceService } from './support/resource-service';

const CHALLENGE = 'Bearer realm="location-exchange"';
const FORMER_ISSUER = 'location-exchange';
const invalidToken = (reason: string) =>
  `${CHALLENGE}, error="invalid_token", error_description="${reason.replace(/"/g, "'")}"`;

/**
 * The path an RSP takes: created with the admin tool, a token from a standard OAuth client library, a protected
 * route of another service that verifies it locally against auth's JWKS (AuthenticationModule from @lx/platform,
 * exactly as every service's AppModule uses it), and every way that can go wrong.
 */
describe('a token from auth at another service', () => {
  let auth: AuthUnderTest;
  let resource: ResourceService;
  let rsp: { clientId: string; clientSecret: string };
  let rspToken: string;

  const call = (path: string, authorization?: string) => resource.call(path, authorization);

  /** Signs with auth's real current key, so only the claim under test is wrong. */
  async function craft(claims: Record<string, unknown>, header: { alg?: string; kid?: string } = {}, key?: KeyLike) {
    const signer = await auth.app.get(SigningKeyStore).signer();
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: 'locations:read', ...claims })
      .setProtectedHeader({ alg: header.alg ?? signer.algorithm, kid: header.kid ?? signer.kid })
      .setIssuer((claims.iss as string | undefined) ?? auth.issuer)
      .setAudience((claims.aud as string | undefined) ?? 'location-exchange-api')
      .setSubject(rsp.clientId)
      .setJti('crafted')
      .setIssuedAt((claims.iat as number | undefined) ?? now)
      .setExpirationTime((claims.exp as number | undefined) ?? now + 300)
      .sign(key ?? signer.privateKey);
  }

  beforeAll(async () => {
    auth = await startAuth({ TOKEN_TTL_SECONDS: '600' });

    let stdout = '';
    const code = await runCli(
      ['clients', 'create', '--name', 'Gamma Fiber', '--kind', 'RSP', '--webhook-url', 'https://gamma.example/hooks'],
      { env: auth.env, stdout: (text) => (stdout += text), stderr: () => undefined },
    );
    expect(code).toBe(0);
    rsp = JSON.parse(stdout);

    const oauth = new ClientCredentials({
      client: { id: rsp.clientId, secret: rsp.clientSecret },
      auth: { tokenHost: auth.url },
    });
    rspToken = (await oauth.getToken({})).token.access_token as string;

    resource = await startResourceService(auth, [FORMER_ISSUER]);
  }, 60_000);

  afterAll(async () => {
    await resource?.close();
    await auth?.close();
  });

  it('accepts the token of an RSP created with the admin tool and obtained with simple-oauth2', async () => {
    const response = await call('/probe/read', `Bearer ${rspToken}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ clientId: rsp.clientId, scopes: ['locations:read'] });
  });

  it('accepts a token of a former issuer listed in acceptedIssuers, as while moving to a new issuer', async () => {
    expect(decodeJwt(rspToken).iss).toBe(auth.issuer);
    const response = await call('/probe/read', `Bearer ${await craft({ iss: FORMER_ISSUER })}`);
    expect(response.statusCode).toBe(200);
  });

  it('without a token: 401 UNAUTHORIZED with a bare Bearer challenge', async () => {
    const response = await call('/probe/read');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(CHALLENGE);
    expect(response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing bearer token' } });
  });

  it.each([['Basic cnNwOnNlY3JldA=='], ['Bearer'], ['Bearer two tokens']])(
    'with the malformed header "%s": 401 UNAUTHORIZED, error="invalid_request"',
    async (header) => {
      const response = await call('/probe/read', header);
      expect(response.statusCode).toBe(401);
      const message = 'Authorization header is not "Bearer <token>"';
      expect(response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message } });
      expect(response.headers['www-authenticate']).toBe(
        `${CHALLENGE}, error="invalid_request", error_description="${message.replace(/"/g, "'")}"`,
      );
    },
  );

  const now = () => Math.floor(Date.now() / 1000);
  it.each([
    ['garbage', async () => 'not.a.jwt', 'The access token is malformed or invalid'],
    ['an expired token', () => craft({ iat: now() - 700, exp: now() - 100 }), 'The access token has expired'],
    ['a not-yet-valid token (nbf)', () => craft({ nbf: now() + 300 }), 'The access token is not yet valid'],
    [
      'a token issued in the future (iat)',
      () => craft({ iat: now() + 300, exp: now() + 900 }),
      'The access token is not yet valid',
    ],
    [
      'a token signed by another key under the real key id',
      async () => craft({}, {}, (await generateKeyPair('ES256')).privateKey),
      'The access token signature is invalid',
    ],
    [
      'a token whose scope was edited after signing',
      async () => {
        const [head, , signature] = rspToken.split('.');
        const claims = JSON.parse(Buffer.from(rspToken.split('.')[1]!, 'base64url').toString());
        const edited = Buffer.from(JSON.stringify({ ...claims, scope: 'locations:read locations:write' })).toString(
          'base64url',
        );
        return `${head}.${edited}.${signature}`;
      },
      'The access token signature is invalid',
    ],
    [
      'an unsigned token (alg none)',
      async () => {
        const [, payload] = rspToken.split('.');
        const { kid } = decodeProtectedHeader(rspToken);
        return `${Buffer.from(JSON.stringify({ alg: 'none', kid })).toString('base64url')}.${payload}.`;
      },
      'The access token algorithm is not accepted',
    ],
    [
      'an HMAC token (HS256)',
      async () =>
        new SignJWT({ scope: 'locations:read' })
          .setProtectedHeader({ alg: 'HS256', kid: decodeProtectedHeader(rspToken).kid! })
          .setIssuer(auth.issuer)
          .setAudience('location-exchange-api')
          .setSubject(rsp.clientId)
          .setJti('x')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(Buffer.alloc(32, 1)),
      'The access token algorithm is not accepted',
    ],
    ['a token of another issuer', () => craft({ iss: 'someone-else' }), "The access token's iss claim is not accepted"],
    [
      'a token for another audience',
      () => craft({ aud: 'another-api' }),
      "The access token's aud claim is not accepted",
    ],
    [
      'a token naming an unknown key id',
      () => craft({}, { kid: 'no-such-key' }),
      'The access token was signed by an unknown key',
    ],
  ])('with %s: 401 UNAUTHORIZED, error="invalid_token" saying why', async (_, makeToken, reason) => {
    const response = await call('/probe/read', `Bearer ${await makeToken()}`);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: reason } });
    expect(response.headers['www-authenticate']).toBe(invalidToken(reason));
  });

  it('with a valid token lacking the route scope: 403 FORBIDDEN with error="insufficient_scope" and the scope', async () => {
    const response = await call('/probe/write', `Bearer ${rspToken}`);
    expect(response.statusCode).toBe(403);
    const message = 'The access token lacks the scope locations:write this operation needs';
    expect(response.json()).toEqual({
      error: { code: 'FORBIDDEN', message, details: { requiredScope: 'locations:write' } },
    });
    expect(response.headers['www-authenticate']).toBe(
      `${CHALLENGE}, error="insufficient_scope", error_description="${message}", scope="locations:write"`,
    );

    const adminOnly = await call('/probe/read', `Bearer ${await auth.adminToken()}`);
    expect(adminOnly.statusCode).toBe(403);
    expect(adminOnly.json().error.details).toEqual({ requiredScope: 'locations:read' });
  });

  it('after a key rotation: new tokens carry the new key id and are accepted, tokens of the old key still are', async () => {
    const oldKid = decodeProtectedHeader(rspToken).kid;
    const adminToken = await auth.adminToken();
    const rotation = await fetch(`${auth.url}/admin/keys/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(rotation.status).toBe(200);
    const rotated: any = await rotation.json();
    expect(rotated.retired).toMatchObject({ kid: oldKid, status: 'previous' });
    expect(rotated.current.status).toBe('current');
    expect(rotated.next.status).toBe('next');

    const { access_token: newToken } = await auth.token(rsp.clientId, rsp.clientSecret);
    expect(decodeProtectedHeader(newToken).kid).toBe(rotated.current.kid);
    expect(rotated.current.kid).not.toBe(oldKid);

    expect((await call('/probe/read', `Bearer ${newToken}`)).statusCode).toBe(200);
    expect((await call('/probe/read', `Bearer ${rspToken}`)).statusCode).toBe(200);
    // Tokens signed before the rotation keep working at auth's own admin API as well.
    expect((await fetch(`${auth.url}/admin/keys`, { headers: { authorization: `Bearer ${adminToken}` } })).status).toBe(
      200,
    );

    const jwks: any = await (await fetch(`${auth.url}/.well-known/jwks.json`)).json();
    expect(jwks.keys.map((key: any) => key.kid).sort()).toEqual([oldKid, rotated.current.kid, rotated.next.kid].sort());
  });
});
