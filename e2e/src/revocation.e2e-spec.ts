import { SCOPES } from '@lx/contracts';
import { ClientRegistry, fetchAccessToken } from './support/api';

/**
 * The longest a revocation may take to reach every service with the defaults: the auth service answers the list from
 * a cache of one second, every service polls it every AUTH_REVOCATIONS_REFRESH_MS (2 s); the rest is margin for a
 * loaded machine.
 */
const REVOCATION_BOUND_MS = 6_000;

/** Paths of two services an RSP reads, each verifying tokens on its own. */
const READS = ['/locations?limit=1', '/locations/statistics'];

/**
 * Revocation through the ingress: the old token of an RSP whose secret is rotated, and the token of an RSP that is
 * disabled, are refused by every service within seconds. Measures the delay from the admin call's answer to the first
 * 401 of each service.
 */
describe('revoking an RSP', () => {
  const registry = new ClientRegistry('revocation');
  const baseUrl = registry.baseUrl;

  afterAll(() => registry.disableAll());

  const read = (path: string, token: string) =>
    fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) });

  /** Milliseconds from now until `path` refuses `token` with 401 (the reply checked for the revocation message). */
  async function millisUntilRefused(path: string, token: string): Promise<number> {
    const start = Date.now();
    for (;;) {
      const reply = await read(path, token);
      const elapsed = Date.now() - start;
      if (reply.status === 401) {
        expect(await reply.json()).toEqual({
          error: { code: 'UNAUTHORIZED', message: 'The access token has been revoked' },
        });
        return elapsed;
      }
      expect(reply.status).toBe(200);
      await reply.arrayBuffer();
      if (elapsed > REVOCATION_BOUND_MS * 2) return elapsed;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('rotating its secret refuses the tokens it held at every service within seconds; a new token works', async () => {
    const { client, registered } = await registry.registration('RSP', [SCOPES.locationsRead]);
    const before = await client.accessToken();
    for (const path of READS) expect((await read(path, before)).status).toBe(200);

    const secret = await registry.rotateSecret(registered.clientId);
    const delays = await Promise.all(READS.map((path) => millisUntilRefused(path, before)));
    console.log(`revocation after a secret rotation reached ${READS.join(', ')} in ${delays.join(', ')} ms`);
    for (const delay of delays) expect(delay).toBeLessThan(REVOCATION_BOUND_MS);

    const { accessToken: after } = await fetchAccessToken(baseUrl, registered.clientId, secret);
    for (const path of READS) expect((await read(path, after)).status).toBe(200);
  });

  it('disabling it refuses its token at every service within seconds', async () => {
    const { client, registered } = await registry.registration('RSP', [SCOPES.locationsRead]);
    const token = await client.accessToken();
    for (const path of READS) expect((await read(path, token)).status).toBe(200);

    await registry.disable(registered.clientId);
    const delays = await Promise.all(READS.map((path) => millisUntilRefused(path, token)));
    console.log(`revocation after disabling reached ${READS.join(', ')} in ${delays.join(', ')} ms`);
    for (const delay of delays) expect(delay).toBeLessThan(REVOCATION_BOUND_MS);
  });
});
