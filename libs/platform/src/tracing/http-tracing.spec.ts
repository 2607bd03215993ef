import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import Fastify from 'fastify';
import { traceRequests } from './http-tracing';
import { registerTracing, stopTracing, traceParentOf } from './tracing';

const CALLER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function appWithRoutes() {
  const app = Fastify();
  traceRequests(app, 'svc');
  app.post('/things/:id', (request) => Promise.resolve({ seen: traceParentOf() ?? null, body: request.body }));
  app.get('/broken', (_request, reply) => reply.code(503).send({}));
  return app;
}

describe('a span per request (traceRequests)', () => {
  afterEach(() => stopTracing());

  it('given tracing off, when a request is served, then no span is active in its handler', async () => {
    const reply = await appWithRoutes().inject({ method: 'POST', url: '/things/1', headers: { traceparent: CALLER } });
    expect(reply.json()).toEqual({ seen: null });
  });

  describe('with tracing on', () => {
    let exporter: InMemorySpanExporter;
    beforeEach(() => {
      exporter = new InMemorySpanExporter();
      registerTracing('svc', new SimpleSpanProcessor(exporter));
    });

    it("given a caller's traceparent and a body, when served, then the route's SERVER span continues it and is active in the handler", async () => {
      const reply = await appWithRoutes().inject({
        method: 'POST',
        url: '/things/42?x=1',
        headers: { traceparent: CALLER, 'content-type': 'application/json' },
        payload: { a: 1 },
      });
      const [span] = exporter.getFinishedSpans();
      expect(span!.name).toBe('POST /things/:id');
      expect(span!.kind).toBe(SpanKind.SERVER);
      expect(span!.instrumentationScope.name).toBe('svc');
      expect(span!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(span!.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/things/:id',
        'url.path': '/things/42',
        'http.response.status_code': 200,
      });
      expect(span!.status.code).toBe(SpanStatusCode.UNSET);
      const { traceId, spanId } = span!.spanContext();
      expect(reply.json()).toEqual({ seen: `00-${traceId}-${spanId}-01`, body: { a: 1 } });
    });

    it('given a 5xx reply, when served, then its span is failed; a request without a caller starts a trace', async () => {
      await appWithRoutes().inject({ method: 'GET', url: '/broken' });
      const [span] = exporter.getFinishedSpans();
      expect(span!.attributes['http.response.status_code']).toBe(503);
      expect(span!.status.code).toBe(SpanStatusCode.ERROR);
      expect(span!.parentSpanContext).toBeUndefined();
    });

    it('given no route, when answered 404, then the span keeps the method as its name', async () => {
      await appWithRoutes().inject({ method: 'GET', url: '/nowhere' });
      const [span] = exporter.getFinishedSpans();
      expect(span!.name).toBe('GET');
      expect(span!.attributes['http.response.status_code']).toBe(404);
    });
  });
});
