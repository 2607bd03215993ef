import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { API_SECURITY_HEADERS, type ErrorBody, errorBody } from '@lx/contracts';
import { ConfigError, type HttpConfig } from '../config/config';
import { ErrorResponseFilter } from '../errors/error-response.filter';
import { createLogger, PinoNestLogger } from '../logging/logger';
import { MetricsRegistry } from '../metrics/metrics';
import { traceRequests } from '../tracing/http-tracing';
import { startTracing, stopTracing } from '../tracing/tracing';
import { answerMethodNotAllowed } from './method-not-allowed';
import { addSecurityHeaders } from './security-headers';

export const REQUEST_ID_HEADER = 'x-request-id';
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * The replies of Fastify's router itself, which no hook or filter sees: a path parameter over `maxParamLength` (100
 * characters; no id of the API comes near) is 414 `URI_TOO_LONG`, a URL that does not decode (`%C0`) 400
 * `INVALID_REQUEST`, each in the error shape with the request id and the security headers, as every other reply.
 */
function answerFrameworkError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
  const [status, body] =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? [414, errorBody('URI_TOO_LONG', 'A path segment is longer than the API accepts')]
      : [400, errorBody('INVALID_REQUEST', 'The URL is not valid')];
  void reply
    .code(status)
    .headers({ ...API_SECURITY_HEADERS, [REQUEST_ID_HEADER]: request.id })
    .type('application/json; charset=utf-8')
    .send(body);
}

/** The reply to a request Node refused before Fastify saw it, by the error Node raised. */
function clientErrorReply(code: string | undefined): [number, ErrorBody] {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return [408, errorBody('REQUEST_TIMEOUT', 'The request was not received in time; send it again')];
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return [400, errorBody('INVALID_REQUEST', 'The request headers are larger than the service accepts')];
  }
  return [400, errorBody('INVALID_REQUEST', 'The request is not valid HTTP')];
}

/**
 * Answers a request that Node refused before Fastify saw it (no route, hook or filter runs for it): not received whole
 * within HTTP_REQUEST_TIMEOUT_MS, or its headers within a minute (Node's headersTimeout): 408 REQUEST_TIMEOUT; headers
 * larger than Node accepts, or bytes that are not HTTP: 400 INVALID_REQUEST. In the API's error shape with a request
 * id and the security headers, as every other reply, instead of Fastify's own body; then the connection closes (where
 * the refused request ends is unknown). A connection already reset gets nothing.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, body] = clientErrorReply(error.code);
  const text = JSON.stringify(body);
  // Never into a reply already under way on this connection (as Node's own handler): then it is only closed.
  const replying = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (socket.writable && replying !== true) {
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...API_SECURITY_HEADERS,
      [REQUEST_ID_HEADER]: randomUUID(),
      connection: 'close',
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${text}`);
  }
  socket.destroy();
}

/**
 * Builds a service's NestJS application on Fastify with the project's conventions: JSON logs (one
 * line per request from Fastify, with `reqId`) and a request id taken from X-Request-Id or
 * generated, echoed back; the spec's error body for every failure including body-parse errors,
 * unknown routes and requests Node refuses itself; a deadline for receiving a request
 * (HTTP_REQUEST_TIMEOUT_MS); the security headers on every reply (security-headers.ts); request-duration metrics;
 * a span per request when tracing is on (OTEL_*, tracing.ts), continuing the caller's W3C trace context.
 */
export async function createServiceApp(
  service: string,
  module: Type | DynamicModule,
  http: Readonly<HttpConfig>,
): Promise<NestFastifyApplication> {
  const pino = createLogger(service, http.logLevel);
  if (http.tracing !== undefined) startTracing(http.tracing, service);
  const adapter = new FastifyAdapter({
    loggerInstance: pino,
    bodyLimit: http.bodyLimitBytes,
    genReqId: requestId,
    frameworkErrors: answerFrameworkError,
    requestTimeout: http.requestTimeoutMs,
    // request.ip: the client behind the trusted proxies (the ingress), not the proxy itself.
    trustProxy: http.trustedProxies !== undefined && http.trustedProxies.length > 0 ? [...http.trustedProxies] : false,
    clientErrorHandler: answerClientError,
    // Given to Node's server when it is created: set afterwards, as Fastify does with requestTimeout, a request whose
    // body stopped arriving was never refused (tried on Node 20). Node checks the deadlines every
    // connectionsCheckingInterval (default 30 s): here a tenth of the deadline, from a quarter second to 30 s.
    http: {
      requestTimeout: http.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.round(http.requestTimeoutMs / 10))),
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    logger: new PinoNestLogger(pino),
  });
  app.useGlobalFilters(new ErrorResponseFilter());

  const fastify = app.getHttpAdapter().getInstance();
  answerMethodNotAllowed(fastify);
  addSecurityHeaders(fastify);
  traceRequests(fastify, service);
  const metrics = app.get(MetricsRegistry);
  fastify.addHook('onSend', async (request, reply) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
  });
  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.httpRequestDuration.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      seconds,
    );
  });
  return app;
}

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Runs a service entry point: a configuration error prints every bad setting and exits 1;
 * any other start-up failure is logged and exits 1 as well. When the entry point returns its application, SIGTERM
 * (Kubernetes stopping the pod) and SIGINT close it gracefully, running every shutdown hook: consumers stop, in-flight
 * requests finish, pools close; then the process exits 0 (1 when closing failed). Nest's own shutdown hooks would
 * re-raise the signal after closing, and a pod stopped that way reports an error exit (143).
 */
export function runMain(main: () => Promise<Pick<INestApplicationContext, 'close'> | void>): void {
  main().then(
    (app) => {
      if (app !== undefined) closeOnStopSignals(app);
    },
    (error: unknown) => {
      if (error instanceof ConfigError) {
        process.stderr.write(`${error.message}\n`);
      } else {
        process.stderr.write(
          `${JSON.stringify({ level: 'fatal', msg: 'start-up failed', err: String(error), stack: (error as Error)?.stack })}\n`,
        );
      }
      process.exit(1);
    },
  );
}

function closeOnStopSignals(app: Pick<INestApplicationContext, 'close'>): void {
  const stop = (signal: NodeJS.Signals) => {
    for (const other of STOP_SIGNALS) process.removeListener(other, stop);
    process.stderr.write(`${JSON.stringify({ level: 'info', msg: 'stopping', signal })}\n`);
    app
      .close()
      .then(() => stopTracing())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'shutdown failed', err: String(error) })}\n`);
          process.exit(1);
        },
      );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
}
