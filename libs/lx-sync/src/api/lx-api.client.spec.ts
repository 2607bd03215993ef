import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LxApiClient, retryWaitMs } from './lx-api.client';

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
  headers: { 'retry-after': retryAfter, 'ratelimit-policy': '"rsp";q=1000;w=10', ratelimit: '"rsp";r=0;t=1' },
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
  it('given a 429 of another quota (without the RateLimit fields), when called, then it fails at once', async () => {
    const api = await fakeApi([
      { status: 429, headers: { 'retry-after': '3600' }, body: { error: { code: 'RATE_LIMIT_EXCEEDED' } } },
    ]);
    try {
      await expect(api.client.statistics()).rejects.toMatchObject({ message: expect.stringContaining('HTTP 429') });
      expect(api.seen).toHaveLength(1);
    } finally {
      await api.close();
    }
  });

  it('given a read refused 503 with Retry-After (the API busy), when called, then it waits and sends it again', async () => {
    const busy = {
      status: 503,
      headers: { 'retry-after': '1' },
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'busy', details: { reason: 'busy' } } },
    };
    const api = await fakeApi([busy, { status: 200, body: { totalCount: 9 } }]);
    try {
      expect(await api.client.statistics()).toEqual({ totalCount: 9 });
      expect(api.seen[1]! - api.seen[0]!).toBeGreaterThanOrEqual(950);
      expect(api.client.requests).toMatchObject({ api: 2, throttled: 1 });
    } finally {
      await api.close();
    }
  });

  it('given a write refused 503 with Retry-After, when called, then it fails at once (it is not sent twice)', async () => {
    const api = await fakeApi([{ status: 503, headers: { 'retry-after': '0' }, body: { error: { code: 'X' } } }]);
    try {
      await expect(api.client.createExport({ format: 'json', includeVersions: true })).rejects.toMatchObject({
        message: expect.stringContaining('HTTP 503'),
      });
      expect(api.seen).toHaveLength(1);
    } finally {
      await api.close();
    }
  });

  it('given a token refused after a wait for the rate limit, when called, then it still fetches a new token once', async () => {
    const api = await fakeApi([
      throttled('0'),
      { status: 401, body: { error: { code: 'UNAUTHORIZED' } } },
      { status: 200, body: { totalCount: 3 } },
    ]);
    try {
      expect(await api.client.statistics()).toEqual({ totalCount: 3 });
      expect(api.client.requests).toMatchObject({ token: 2, api: 3, throttled: 1 });
    } finally {
      await api.close();
    }
  });
});

describe('retryWaitMs', () => {
  const now = Date.parse('2024-03-01T10:00:00Z');
  const limited = (retryAfter?: string) =>
    new Headers({
      'ratelimit-policy': '"rsp";q=1000;w=10',
      ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
    });

  it('given a 429 of the rate limit, when read, then it is its Retry-After, at most a minute', () => {
    expect(retryWaitMs('GET', { status: 429, headers: limited('3') }, now)).toBe(3_000);
    expect(retryWaitMs('GET', { status: 429, headers: limited('Fri, 01 Mar 2024 10:00:05 GMT') }, now)).toBe(5_000);
    expect(retryWaitMs('GET', { status: 429, headers: limited('3600') }, now)).toBe(60_000);
  });

  it('given a 429 of the rate limit without a usable Retry-After, when read, then it is a second', () => {
    expect(retryWaitMs('GET', { status: 429, headers: limited() }, now)).toBe(1_000);
    expect(retryWaitMs('GET', { status: 429, headers: limited('soon') }, now)).toBe(1_000);
  });

  it('given another reply, when read, then there is nothing to wait for', () => {
    expect(retryWaitMs('GET', { status: 429, headers: new Headers({ 'retry-after': '3' }) }, now)).toBeUndefined();
    expect(retryWaitMs('GET', { status: 503, headers: new Headers() }, now)).toBeUndefined();
    expect(retryWaitMs('POST', { status: 503, headers: limited('3') }, now)).toBeUndefined();
    expect(retryWaitMs('GET', { status: 500, headers: limited('3') }, now)).toBeUndefined();
  });

  it('given a read refused 503 with Retry-After, when read, then it is its Retry-After, at most a minute', () => {
    expect(retryWaitMs('GET', { status: 503, headers: new Headers({ 'retry-after': '2' }) }, now)).toBe(2_000);
    expect(retryWaitMs('GET', { status: 503, headers: new Headers({ 'retry-after': '999' }) }, now)).toBe(60_000);
    expect(retryWaitMs('GET', { status: 503, headers: new Headers({ 'retry-after': 'soon' }) }, now)).toBe(1_000);
  });
});
