import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contextOfHeaders, endSpan, isTracingOn, tracerOf } from './tracing';

const REQUEST_SPANS = new WeakMap<FastifyRequest, Span>();

/**
 * A SERVER span per request, when tracing is on: the child of the W3C trace context the caller sent (the ingress
 * passes it on), named by method and route once the route is known, with the status code; a 5xx marks it failed. It
 * is the active span from the handler on (entered in preHandler, after the body is parsed, so a streamed body's
 * callbacks do not lose it), so the spans and stored trace contexts of the work a request causes descend from it.
 * With tracing off, no hook is added.
 */
export function traceRequests(fastify: FastifyInstance, service: string): void {
  if (!isTracingOn()) return;
  const tracer = tracerOf(service);
  fastify.addHook('onRequest', (request, _reply, done) => {
    const span = tracer.startSpan(
      request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.path': request.url.split('?', 1)[0],
          'lx.request_id': request.id,
        },
      },
      contextOfHeaders(request.headers),
    );
    if (span.isRecording()) REQUEST_SPANS.set(request, span);
    done();
  });
  fastify.addHook('preHandler', (request, _reply, done) => {
    const span = REQUEST_SPANS.get(request);
    if (span === undefined) done();
    else context.with(trace.setSpan(context.active(), span), done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = REQUEST_SPANS.get(request);
    if (span !== undefined) {
      REQUEST_SPANS.delete(request);
      const route = request.routeOptions.url;
      if (route !== undefined) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    const span = REQUEST_SPANS.get(request);
    if (span !== undefined) {
      REQUEST_SPANS.delete(request);
      endSpan(span, new Error('the client closed the connection before the reply'));
    }
    done();
  });
}
