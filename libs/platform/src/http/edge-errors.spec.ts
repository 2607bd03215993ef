import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { API_SECURITY_HEADERS } from '@lx/contracts';
import { createEdgeErrorServer } from './edge-errors';

describe('createEdgeErrorServer (on loopback)', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createEdgeErrorServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const securityHeadersOf = (reply: Response) =>
    Object.fromEntries(Object.keys(API_SECURITY_HEADERS).map((name) => [name, reply.headers.get(name)]));

  it.each([
    ['GET', '/'],
    ['GET', '/no/such/route?x=1'],
    ['POST', '/admin/keys/rotate'],
    ['DELETE', '/locations'],
  ])(
    'given %s %s without X-Code (a path without a route), then 404 RESOURCE_NOT_FOUND in the API shape',
    async (method, path) => {
      const reply = await fetch(`${base}${path}`, { method, headers: { 'x-request-id': 'req-1' } });
      expect(reply.status).toBe(404);
      expect(reply.headers.get('content-type')).toBe('application/json');
      expect(reply.headers.get('x-request-id')).toBe('req-1');
      expect(reply.headers.get('retry-after')).toBeNull();
      expect(securityHeadersOf(reply)).toEqual(API_SECURITY_HEADERS);
      expect(await reply.json()).toEqual({ error: { code: 'RESOURCE_NOT_FOUND', message: 'No route for this path' } });
    },
  );

  it.each(['502', '504', '500', '200'])(
    'given X-Code %s (a client can send it through the catch-all), then still 404',
    async (code) => {
      const reply = await fetch(`${base}/locations/x`, { headers: { 'x-code': code } });
      expect(reply.status).toBe(404);
      expect(reply.headers.get('retry-after')).toBeNull();
      await reply.body?.cancel();
    },
  );

  it('given no X-Request-Id, then a new one; given HEAD, then no body', async () => {
    const first = await fetch(`${base}/x`);
    const second = await fetch(`${base}/x`);
    expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    await Promise.all([first.body?.cancel(), second.body?.cancel()]);
    const head = await fetch(`${base}/x`, { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(await head.text()).toBe('');
  });
});
