import { randomUUID } from 'node:crypto';
import { requireEnv } from '@lx/testing';
import { type Service, SERVICES } from './support/services';

const serviceUrl = (service: Service) => requireEnv(`${service.toUpperCase().replace(/-/g, '_')}_URL`);

/** Requests a service answered with `status`, summed over routes except /metrics itself (these scrapes count there). */
async function answeredWith(service: Service, status: number): Promise<number> {
  const text = await (await fetch(`${serviceUrl(service)}/metrics`)).text();
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('http_request_duration_seconds_count{') &&
        line.includes(`status_code="${status}"`) &&
        !line.includes('route="/metrics"'),
    )
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
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

describe('the ingress at BASE_URL', () => {
  const baseUrl = requireEnv('BASE_URL');

  it.each(ROUTES)('routes %s %s to %s, which asks for a bearer token', async (method, path, owner) => {
    const before = await Promise.all(SERVICES.map((service) => answeredWith(service, 401)));
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

    const after = await Promise.all(SERVICES.map((service) => answeredWith(service, 401)));
    const answeredBy = SERVICES.filter((_, i) => after[i]! - before[i]! === 1);
    expect(answeredBy).toEqual([owner]);
  });

  it.each([
    ['POST', '/oauth/token', 400],
    ['GET', '/.well-known/jwks.json', 200],
    ['GET', '/.well-known/oauth-authorization-server', 200],
    ['GET', '/.well-known/openid-configuration', 200],
  ])('routes the public path %s %s to auth without asking for a token', async (method, path, status) => {
    const before = await Promise.all(SERVICES.map((service) => answeredWith(service, status)));
    const response = await fetch(`${baseUrl}${path}`, { method });
    // No token and no form: the token endpoint's own OAuth error; the key set and the metadata are public.
    expect(response.status).toBe(status);
    const after = await Promise.all(SERVICES.map((service) => answeredWith(service, status)));
    expect(SERVICES.filter((_, i) => after[i]! - before[i]! === 1)).toEqual(['auth']);
  });

  it('answers a path no service owns itself, in the spec error shape', async () => {
    const response = await fetch(`${baseUrl}/no-such-thing`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('RESOURCE_NOT_FOUND');
  });
});
