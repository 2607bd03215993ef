import { decodeJwt, decodeProtectedHeader } from 'jose';
import { type RegisteredClient, revocationListSchema } from '@lx/contracts';
import { runCli } from '../../src/cli/auth-cli';
import { startAuth, type AuthUnderTest } from './support/auth-under-test';
import { REVOCATIONS_REFRESH_MS, type ResourceService, startResourceService } from './support/resource-service';

/** Polls `call` until it answers 401; resolves with the milliseconds that took. */
async function millisUntilRefused(call: () => Promise<{ statusCode: number }>, limitMs = 10_000): Promise<number> {
  const start = Date.now();
  for (;;) {
    if ((await call()).statusCode === 401) return Date.now() - start;
    if (Date.now() - start > limitMs) throw new Error(`still accepted after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Revocation end to end against a real auth service (Postgres) and "another service" verifying tokens as every
 * service does: disabling a client, rotating its secret, narrowing its scopes and revoking a signing key each make the
 * tokens issued before refused within the polling interval, at the other service and at auth's own admin API.
 */
describe('token revocation', () => {
  let auth: AuthUnderTest;
  let resource: ResourceService;
  let adminToken: string;
  /** Auth answers the revocation list from a cache of one second, then the next poll brings it. */
  const WITHIN_MS = 1_000 + REVOCATIONS_REFRESH_MS + 500;

  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${auth.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const read = (token: string) => () => resource.call('/probe/read', `Bearer ${token}`);
  const newRsp = () => auth.register({ name: 'Revoked Fiber', kind: 'RSP' });
  const tokenOf = async (client: RegisteredClient) =>
    (await auth.token(client.clientId, client.clientSecret)).access_token;

  beforeAll(async () => {
    auth = await startAuth();
    resource = await startResourceService(auth);
    adminToken = await auth.adminToken();
  }, 60_000);

  afterAll(async () => {
    await resource?.close();
    await auth?.close();
  });

  it("rotating a client's secret refuses the tokens it held within a poll; a token of the new secret is accepted", async () => {
    const rsp = await newRsp();
    const before = await tokenOf(rsp);
    expect((await read(before)()).statusCode).toBe(200);

    const rotation = await admin('POST', `/admin/clients/${rsp.clientId}/rotate-secret`);
    expect(rotation.status).toBe(200);
    const { clientSecret } = (await rotation.json()) as { clientSecret: string };
    expect(await millisUntilRefused(read(before))).toBeLessThan(WITHIN_MS);
    const refused = await read(before)();
    expect(refused.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'The access token has been revoked' } });

    const after = (await auth.token(rsp.clientId, clientSecret)).access_token;
    // Issued within the second of the rotation, the new token is dated at its cut-off and stays valid.
    expect(decodeJwt(after).iat).toBeGreaterThanOrEqual(decodeJwt(before).iat!);
    expect((await read(after)()).statusCode).toBe(200);
  });

  it("disabling a client refuses its tokens; updating its name does not, narrowing an operator's scopes does", async () => {
    const rsp = await newRsp();
    const token = await tokenOf(rsp);
    expect((await admin('PATCH', `/admin/clients/${rsp.clientId}`, { name: 'Renamed Fiber' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, WITHIN_MS));
    expect((await read(token)()).statusCode).toBe(200);

    expect((await admin('POST', `/admin/clients/${rsp.clientId}/disable`)).status).toBe(200);
    expect(await millisUntilRefused(read(token))).toBeLessThan(WITHIN_MS);

    const operator = await auth.register({ name: 'Loader', kind: 'OPERATOR' });
    const operatorToken = await tokenOf(operator);
    expect((await read(operatorToken)()).statusCode).toBe(200);
    const narrowed = await admin('PATCH', `/admin/clients/${operator.clientId}`, { scopes: ['locations:write'] });
    expect(narrowed.status).toBe(200);
    expect(await millisUntilRefused(read(operatorToken))).toBeLessThan(WITHIN_MS);
  });

  it('revoking the current signing key rotates it out and refuses its tokens here and at auth; the new key signs', async () => {
    const rsp = await newRsp();
    const token = await tokenOf(rsp);
    const kid = decodeProtectedHeader(token).kid!;

    const revocation = await admin('POST', `/admin/keys/${kid}/revoke`);
    expect(revocation.status).toBe(200);
    const result = (await revocation.json()) as { revoked: { kid: string; status: string }; current: { kid: string } };
    expect(result.revoked).toMatchObject({ kid, status: 'revoked', revokedAt: expect.any(String) });
    expect(result.current.kid).not.toBe(kid);

    expect(await millisUntilRefused(read(token))).toBeLessThan(WITHIN_MS);
    expect((await read(token)()).json().error.message).toBe('The access token was signed by a revoked key');
    // The admin token was signed by the same key: auth's own API refuses it as well.
    expect((await admin('GET', '/admin/keys')).status).toBe(401);
    adminToken = await auth.adminToken();
    expect(decodeProtectedHeader(adminToken).kid).toBe(result.current.kid);
    expect((await admin('GET', '/admin/keys')).status).toBe(200);

    const jwks = (await (await fetch(`${auth.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((key) => key.kid)).not.toContain(kid);
    expect((await read(await tokenOf(rsp))()).statusCode).toBe(200);

    // Revoking it again changes nothing; an unknown key is 404, the next key (it signed nothing) 409.
    expect((await admin('POST', `/admin/keys/${kid}/revoke`)).status).toBe(200);
    const unknown = await admin('POST', '/admin/keys/no-such-key/revoke');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { details: unknown } }).error.details).toEqual({
      resourceType: 'signingKey',
      resourceId: 'no-such-key',
    });
    const { keys } = (await (await admin('GET', '/admin/keys')).json()) as { keys: { kid: string; status: string }[] };
    const next = keys.find((key) => key.status === 'next')!;
    expect((await admin('POST', `/admin/keys/${next.kid}/revoke`)).status).toBe(409);
  });

  it('the command-line tool revokes a key as the API does', async () => {
    const rsp = await newRsp();
    const token = await tokenOf(rsp);
    let stdout = '';
    const code = await runCli(['keys', 'revoke', decodeProtectedHeader(token).kid!], {
      env: auth.env,
      stdout: (text) => (stdout += text),
      stderr: () => undefined,
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).revoked.status).toBe('revoked');
    expect(await millisUntilRefused(read(token))).toBeLessThan(WITHIN_MS);
    adminToken = await auth.adminToken();
  });

  it('serves the list without a token, with an entity tag that makes an unchanged list a 304', async () => {
    const response = await fetch(`${auth.url}/internal/revocations`);
    expect(response.status).toBe(200);
    const list = revocationListSchema.parse(await response.json());
    expect(list.signingKeys.length).toBeGreaterThanOrEqual(2);
    expect(list.clients.length).toBeGreaterThanOrEqual(3);
    const etag = response.headers.get('etag')!;
    const again = await fetch(`${auth.url}/internal/revocations`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });
});
