import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LxApiClient, retryAfterMs } from './lx-api.client';

/** An API on loopback that answers the token endpoint, and /locations/statistics from `replies` in turn. */
async function fakeApi(replies: { status: number; headers?: Record<string, string>; body: unknown }[]) {
  const seen: number[] = [];
  const server: Server = createServer((request, response) => {
    if (request.url === '/oauth/token') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ access_token: 't', token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    seen.push(Date.now());
    const reply = replies.shift() ?? { status: 500, body: {} };
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new LxApiClient({ apiUrl, clientId: 'c', clientSecret: 's', requestTimeoutMs: 5_000 });
  return { client, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const throttled = (retryAfter: string) => ({
  status: 429,
  headers: { 'retry-after': retryAfter },
  body: { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'at most 1000 requests per 10 s' } },
});

describe('LxApiClient', () => {
  it('given the API refuses a request over the rate limit, when called, then it waits Retry-After and sends it again', async () => {
    const api = await fakeApi([throttled('1'), { status: 200, body: { totalCount: 7 } }]);
    try {
      expect(await api.client.statistics()).toEqual({ totalCount: 7 });
      expect(api.seen).toHaveLength(2);
      expect(api.seen[1]! - api.seen[0]!).toBeGreaterThanOrEqual(950);
      expect(api.client.requests).toMatchObject({ api: 2, throttled: 1 });
    } finally {
      await api.close();
    }
  });

  it('given the API keeps refusing, when called, then it gives up after ten waits with the API error', async () => {
    const api = await fakeApi(Array.from({ length: 11 }, () => throttled('0')));
    try {
      await expect(api.client.statistics()).rejects.toMatchObject({
        message: expect.stringContaining('HTTP 429 RATE_LIMIT_EXCEEDED'),
      });
      expect(api.seen).toHaveLength(11);
    } finally {
      await api.close();
    }
  });
});

describe('retryAfterMs', () => {
  it('given Retry-After in seconds, when read, then it is that many milliseconds, at most a minute', () => {
    expect(retryAfterMs('3')).toBe(3_000);
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs('3600')).toBe(60_000);
  });

  it('given no Retry-After or one that is not a number of seconds, when read, then it is a second', () => {
    expect(retryAfterMs(null)).toBe(1_000);
    expect(retryAfterMs('soon')).toBe(1_000);
    expect(retryAfterMs('-5')).toBe(1_000);
  });
});
