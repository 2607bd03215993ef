import { randomUUID } from 'node:crypto';
import { API_CONTENT_SECURITY_POLICY, DOCUMENTATION_CONTENT_SECURITY_POLICY } from '@lx/contracts';
import { requireEnv, waitFor } from '@lx/testing';
import { type Service } from './support/services';

const serviceUrl = (service: Service) => requireEnv(`${service.toUpperCase().replace(/-/g, '_')}_URL`);

/**
 * Requests `service` answered on one route (its template, as the service's HTTP metric labels it) with `status`.
 * Counted per route, not per service: the other system test files run at the same time, probes and token-key
 * refreshes reach the services too, and none of them changes the count of this route and status unless it asks
 * the same thing (which can only add to the count, never hide a request routed elsewhere: that one would be counted
 * by the other service as `unmatched` and answered 404).
 */
async function answered(service: Service, method: string, route: string, status: number): Promise<number> {
  const text = await (await fetch(`${serviceUrl(service)}/metrics`)).text();
  const labels = [`method="${method}"`, `route="${route}"`, `status_code="${status}"`];
  const line = text
    .split('\n')
    .find((l) => l.startsWith('http_request_duration_seconds_count{') && labels.every((label) => l.includes(label)));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

/**
 * Waits until the count of `answered` exceeds `before`. A service counts a request when its response has gone out
 * (Fastify's onResponse), which can be after the client has read it all: one read right after the reply may come too
 * early.
 */
async function expectCounted(service: Service, method: string, route: string, status: number, before: number) {
  let count = before;
  await waitFor(
    `${service} to count ${method} ${route} ${status}`,
    async () => (count = await answered(service, method, route, status)) > before,
    10_000,
  ).catch(() => undefined);
  expect(count).toBeGreaterThan(before);
}

const id = '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e';

/** Every public path of the spec (and the operator/admin prefixes), and the service that owns it. */
const ROUTES: [method: string, path: string, service: Service][] = [
  ['GET', `/locations/${id}`, 'location-query'],
  ['GET', '/locations?locationGroupId=' + id, 'location-query'],
  ['GET', '/locations/statistics', 'statistics-projection'],
  ['GET', '/locations/statistics?status=ACTIVE', 'statistics-projection'],
  ['POST', '/locations/exports', 'export-worker'],
  ['GET', `/locations/exports/${id}`, 'export-worker'],
  ['GET', `/location-groups/${id}`, 'location-query'],
  ['GET', '/location-groups?limit=10', 'location-query'],
  ['GET', `/address-groups/${id}`, 'location-query'],
  ['GET', '/address-groups', 'location-query'],
  ['POST', '/operator/locations', 'location-command'],
  ['GET', '/admin/clients', 'auth'],
  ['GET', '/admin/webhooks/deliveries', 'webhook-dispatcher'],
  ['GET', '/webhooks/deliveries', 'webhook-dispatcher'],
  ['PUT', '/webhooks/subscription', 'webhook-dispatcher'],
];

/** The route template the owner registered for `path`: the id as `:id`, no query. */
const routeOf = (path: string) => path.split('?')[0]!.replace(id, ':id');

describe('the ingress at BASE_URL', () => {
  const baseUrl = requireEnv('BASE_URL');

  it.each(ROUTES)('routes %s %s to %s, which asks for a bearer token', async (method, path, owner) => {
    const before = await answered(owner, method, routeOf(path), 401);
    const requestId = randomUUID();

    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'x-request-id': requestId, 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : '{}',
    });

    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="location-exchange"');
    expect(response.headers.get('x-request-id')).toBe(requestId);
    expect(await response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing bearer token' } });

    await expectCounted(owner, method, routeOf(path), 401, before);
  });

  it.each([
    ['POST', '/oauth/token', 400],
    ['GET', '/.well-known/jwks.json', 200],
    ['GET', '/.well-known/oauth-authorization-server', 200],
    ['GET', '/.well-known/openid-configuration', 200],
    ['GET', '/openapi.json', 200],
    ['GET', '/openapi-rsp.json', 200],
    ['GET', '/docs', 200],
  ])('routes the public path %s %s to auth without asking for a token', async (method, path, status) => {
    const before = await answered('auth', method, path, status);
    const response = await fetch(`${baseUrl}${path}`, { method });
    // No token and no form: the token endpoint's own OAuth error; the key set and the metadata are public.
    expect(response.status).toBe(status);
    // Read to the end: until then a large body (the OpenAPI document) may still be on its way, not yet counted.
    await response.arrayBuffer();
    await expectCounted('auth', method, path, status, before);
  });

  it('answers a path no service owns itself, in the spec error shape, with the request id', async () => {
    const requestId = randomUUID();
    const response = await fetch(`${baseUrl}/no-such-thing`, { headers: { 'x-request-id': requestId } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toBe(requestId);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('RESOURCE_NOT_FOUND');

    // Without one, the ingress makes one up (nginx's $request_id: 32 hexadecimal digits): the spec promises an
    // X-Request-Id on every reply.
    const anonymous = await fetch(`${baseUrl}/no-such-thing`);
    expect(anonymous.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    await anonymous.arrayBuffer();
  });
});

describe('the errors the ingress answers itself, and the security headers, at BASE_URL', () => {
  const baseUrl = requireEnv('BASE_URL');

  /** The API's error shape with the headers every reply carries, whoever answered. */
  async function expectEdgeError(response: Response, status: number, code: string) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expectSecurityHeaders(response, API_CONTENT_SECURITY_POLICY);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
  }

  function expectSecurityHeaders(response: Response, policy: string) {
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toBe(policy);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  }

  it('answers an encoded ../ that climbs above the root 400 INVALID_REQUEST, not an HTML page', async () => {
    await expectEdgeError(await fetch(`${baseUrl}/locations/..%2F..%2F..%2Fetc%2Fpasswd`), 400, 'INVALID_REQUEST');
  });

  it('answers a request line over 8 KB 414 URI_TOO_LONG', async () => {
    await expectEdgeError(await fetch(`${baseUrl}/locations/${'x'.repeat(10_000)}`), 414, 'URI_TOO_LONG');
  });

  it('answers a header over 8 KB 400 INVALID_REQUEST', async () => {
    const response = await fetch(`${baseUrl}/locations/${id}`, { headers: { 'x-padding': 'y'.repeat(10_000) } });
    await expectEdgeError(response, 400, 'INVALID_REQUEST');
  });

  it("puts the API's security headers on the services' replies and on its own, and Swagger UI's policy on /docs", async () => {
    for (const path of [`/locations/${id}`, '/openapi.json', '/no-such-thing']) {
      const response = await fetch(`${baseUrl}${path}`);
      await response.arrayBuffer();
      expectSecurityHeaders(response, API_CONTENT_SECURITY_POLICY);
    }
    const docs = await fetch(`${baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui-bundle.js');
    expectSecurityHeaders(docs, DOCUMENTATION_CONTENT_SECURITY_POLICY);
  });
});
