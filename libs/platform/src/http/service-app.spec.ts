import { Body, Controller, Get, Header, Module, Post, Req } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest, InjectOptions } from 'fastify';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { ResourceNotFoundError } from '@lx/domain';
import { MetricsModule } from '../metrics/metrics';
import { API_SECURITY_HEADERS } from '@lx/contracts';
import type { HttpConfig } from '../config/config';
import { createServiceApp } from './service-app';

@Controller('things')
class ThingsController {
  @Post()
  create(@Body() body: unknown) {
    return { received: body };
  }

  @Get('missing')
  missing() {
    throw new ResourceNotFoundError('location', '6f1c1e9e-0000-4000-8000-000000000001');
  }

  @Get('page')
  @Header('content-security-policy', "default-src 'self'")
  page() {
    return 'a page with a policy of its own';
  }

  @Get('by-id/:id')
  byId() {
    return { found: true };
  }

  @Get('ip')
  ip(@Req() request: FastifyRequest) {
    return { ip: request.ip };
  }

  @Get('boom')
  boom() {
    throw new Error('connection to db://admin:hunter2@db failed');
  }
}

@Module({ imports: [MetricsModule], controllers: [ThingsController] })
class TestModule {}

const HTTP = {
  host: '127.0.0.1',
  port: 1,
  bodyLimitBytes: 1024,
  requestTimeoutMs: 300_000,
  logLevel: 'silent',
} as const satisfies HttpConfig;

describe('a service app built by createServiceApp', () => {
  let app: NestFastifyApplication;
  const inject = (options: InjectOptions) => app.getHttpAdapter().getInstance().inject(options);

  beforeAll(async () => {
    app = await createServiceApp('test', TestModule, HTTP);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(() => app.close());

  it('answers a well-formed request normally', async () => {
    const response = await inject({ method: 'POST', url: '/things', payload: { a: 1 } });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ received: { a: 1 } });
  });

  it.each([
    ['a success', { method: 'POST', url: '/things', payload: { a: 1 } }, 201],
    ['a typed error', { method: 'GET', url: '/things/missing' }, 404],
    ['an unexpected error', { method: 'GET', url: '/things/boom' }, 500],
    ['an unknown route', { method: 'GET', url: '/nowhere' }, 404],
    [
      'a body parse error',
      { method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{' },
      400,
    ],
  ] as const)('puts the security headers on %s', async (_name, request, status) => {
    const response = await inject(request);
    expect(response.statusCode).toBe(status);
    expect(response.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
  });

  it.each([
    ['a path parameter over 100 characters', `/things/by-id/${'x'.repeat(101)}`, 414, 'URI_TOO_LONG'],
    ['a URL that does not decode', '/things/by-id/%C0', 400, 'INVALID_REQUEST'],
  ])(
    "answers %s, which Fastify's router refuses itself, in the error shape with the headers",
    async (_case, url, status, code) => {
      const response = await inject({ method: 'GET', url, headers: { 'x-request-id': 'edge.1' } });
      expect(response.statusCode).toBe(status);
      expect(response.json()).toEqual({ error: { code, message: expect.any(String) } });
      expect(response.headers['x-request-id']).toBe('edge.1');
      expect(response.headers).toMatchObject(API_SECURITY_HEADERS);
      // A parameter of 100 characters is still routed.
      expect((await inject({ method: 'GET', url: `/things/by-id/${'x'.repeat(100)}` })).statusCode).toBe(200);
    },
  );

  it('puts the security headers on a 405 and a 413 too', async () => {
    const notAllowed = await inject({ method: 'DELETE', url: '/things' });
    expect(notAllowed.statusCode).toBe(405);
    expect(notAllowed.headers).toMatchObject(API_SECURITY_HEADERS);
    const tooLarge = await inject({ method: 'POST', url: '/things', payload: { text: 'x'.repeat(2048) } });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.headers).toMatchObject(API_SECURITY_HEADERS);
  });

  it("keeps a route's own Content-Security-Policy and adds the other security headers", async () => {
    const response = await inject({ method: 'GET', url: '/things/page' });
    expect(response.headers['content-security-policy']).toBe("default-src 'self'");
    expect(response.headers['x-content-type-options']).toBe(API_SECURITY_HEADERS['x-content-type-options']);
  });

  it('turns malformed JSON into 400 INVALID_REQUEST', async () => {
    const response = await inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
      payload: '{"a": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: {
        code: 'INVALID_REQUEST',
        message: "Body is not valid JSON but content-type is set to 'application/json'",
      },
    });
  });

  it('turns a body over the limit into 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await inject({ method: 'POST', url: '/things', payload: { text: 'x'.repeat(2048) } });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' },
    });
  });

  it('turns an unsupported content type into 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const response = await inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('maps a typed domain error to its status, code and details', async () => {
    const response = await inject({ method: 'GET', url: '/things/missing' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      error: {
        code: 'RESOURCE_NOT_FOUND',
        message: expect.any(String),
        details: { resourceType: 'location', resourceId: '6f1c1e9e-0000-4000-8000-000000000001' },
      },
    });
  });

  it('answers an unexpected error with 500 and only an error id: no message, no stack', async () => {
    const response = await inject({ method: 'GET', url: '/things/boom' });
    expect(response.statusCode).toBe(500);
    const body = response.json();
    expect(body).toEqual({
      error: { code: 'INTERNAL_ERROR', message: 'Internal error', details: { errorId: expect.any(String) } },
    });
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain(' at ');
  });

  it('answers an unknown route with 404 RESOURCE_NOT_FOUND naming the route', async () => {
    const response = await inject({ method: 'DELETE', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'RESOURCE_NOT_FOUND', message: 'No route for DELETE /nowhere' } });
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed or missing one with a UUID', async () => {
    const given = await inject({ method: 'GET', url: '/things/missing', headers: { 'x-request-id': 'rsp-trace.42' } });
    expect(given.headers['x-request-id']).toBe('rsp-trace.42');

    const malformed = await inject({
      method: 'GET',
      url: '/things/missing',
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(malformed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);

    const missing = await inject({ method: 'GET', url: '/things/missing' });
    expect(missing.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("a service app's idea of the caller's address (HTTP_TRUSTED_PROXIES)", () => {
  const ipSeen = async (trustedProxies: readonly string[] | undefined, remoteAddress: string, forwarded?: string) => {
    const app = await createServiceApp('test', TestModule, { ...HTTP, trustedProxies });
    try {
      await app.init();
      const fastify = app.getHttpAdapter().getInstance();
      await fastify.ready();
      const reply = await fastify.inject({
        method: 'GET',
        url: '/things/ip',
        remoteAddress,
        headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
      });
      return reply.json<{ ip: string }>().ip;
    } finally {
      await app.close();
    }
  };

  it('takes X-Forwarded-For from a trusted proxy: the last address of the chain that is not one', async () => {
    expect(await ipSeen(['loopback'], '127.0.0.1', '203.0.113.7')).toBe('203.0.113.7');
    expect(await ipSeen(['loopback', '10.0.0.0/8'], '10.1.2.3', '198.51.100.1, 203.0.113.7, 10.9.9.9')).toBe(
      '203.0.113.7',
    );
  });

  it('ignores X-Forwarded-For from anyone else, and without trusted proxies', async () => {
    expect(await ipSeen(['loopback'], '192.0.2.10', '203.0.113.7')).toBe('192.0.2.10');
    expect(await ipSeen([], '127.0.0.1', '203.0.113.7')).toBe('127.0.0.1');
    expect(await ipSeen(undefined, '127.0.0.1', '203.0.113.7')).toBe('127.0.0.1');
  });
});

describe('a service app refusing requests Node answers itself (over a real socket on loopback)', () => {
  let app: NestFastifyApplication;
  let port: number;

  beforeAll(async () => {
    app = await createServiceApp('test', TestModule, { ...HTTP, port: 0, requestTimeoutMs: 1_000 });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(() => app.close());

  /** Writes `bytes` (and nothing more), then reads until the server closes; with the milliseconds that took. */
  const exchange = (bytes: string) =>
    new Promise<{ reply: string; ms: number }>((resolve, reject) => {
      const started = Date.now();
      const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let reply = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (reply += chunk));
      socket.on('error', reject).on('close', () => resolve({ reply, ms: Date.now() - started }));
    });
  const parsed = (reply: string) => {
    const [head, body] = reply.split('\r\n\r\n') as [string, string];
    const [statusLine, ...lines] = head.split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => line.split(': ') as [string, string]));
    return { statusLine, headers, body: JSON.parse(body) as unknown };
  };

  it('given a body that does not arrive within the deadline, then 408 REQUEST_TIMEOUT in the error shape', async () => {
    const { reply, ms } = await exchange(
      'POST /things HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"a":',
    );
    const { statusLine, headers, body } = parsed(reply);
    expect(statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(body).toEqual({
      error: { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time; send it again' },
    });
    expect(headers).toMatchObject({
      ...API_SECURITY_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      connection: 'close',
    });
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // The deadline (1 s), checked every tenth of it: answered at about 1 s, not at Node's default check (30 s).
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(5_000);
  });

  it.each([
    [
      'headers larger than Node accepts',
      `GET /things/page HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    ],
    ['bytes that are not HTTP', 'HELLO\r\n\r\n'],
  ])('given %s, then 400 INVALID_REQUEST in the error shape', async (_, bytes) => {
    const { statusLine, headers, body } = parsed((await exchange(bytes)).reply);
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(body).toEqual({ error: { code: 'INVALID_REQUEST', message: expect.any(String) } });
    expect(headers).toMatchObject(API_SECURITY_HEADERS);
  });

  it('given a request within the deadline, then it is answered as usual', async () => {
    const { reply } = await exchange(
      'POST /things HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":1}',
    );
    expect(reply.startsWith('HTTP/1.1 201 ')).toBe(true);
  });
});
