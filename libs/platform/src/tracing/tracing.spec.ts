import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  contextOfTraceParent,
  inSpan,
  isTracingOn,
  registerTracing,
  startTracing,
  stopTracing,
  traceParentOf,
  tracerOf,
  withTraceHeaders,
} from './tracing';

const run = promisify(execFile);
const CALLER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const tracer = tracerOf('test');

afterEach(() => stopTracing());

describe('tracing off (the default)', () => {
  it('given the exporter none, when started, then nothing is registered and every helper is a no-op', async () => {
    expect(startTracing({ exporter: 'none', protocol: 'http/protobuf' }, 'svc')).toBe(false);
    expect(isTracingOn()).toBe(false);
    const headers = { accept: 'application/json' };
    await inSpan(tracer, 'work', { parent: contextOfTraceParent(CALLER) }, async (span) => {
      expect(span.isRecording()).toBe(false);
      expect(traceParentOf()).toBeUndefined();
      expect(withTraceHeaders(headers)).toBe(headers);
    });
  });
});

describe('tracing on', () => {
  let exporter: InMemorySpanExporter;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    registerTracing('svc', new SimpleSpanProcessor(exporter));
  });

  it('given a stored traceparent, when work runs in a span under it, then the span continues that trace and is active inside', async () => {
    let inside: string | undefined;
    await inSpan(tracer, 'work', { parent: contextOfTraceParent(CALLER) }, async () => {
      inside = traceParentOf();
      await inSpan(tracer, 'step', {}, () => Promise.resolve());
    });
    const [step, work] = exporter.getFinishedSpans();
    expect(work!.name).toBe('work');
    expect(work!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(work!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(step!.parentSpanContext?.spanId).toBe(work!.spanContext().spanId);
    expect(inside).toBe(`00-${work!.spanContext().traceId}-${work!.spanContext().spanId}-01`);
    expect(withTraceHeaders({ a: 'b' }, work as never)).toEqual({ a: 'b', traceparent: inside });
  });

  it('given work that throws, when its span ends, then the span is failed with the message and the error goes on', async () => {
    await expect(inSpan(tracer, 'work', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const [span] = exporter.getFinishedSpans();
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
    expect(span!.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('given a traceparent that is not one, then it starts no trace', () => {
    expect(traceParentOf(contextOfTraceParent('00-nonsense'))).toBeUndefined();
    expect(traceParentOf(contextOfTraceParent(null))).toBeUndefined();
  });

  it('given tracing already on, when registered again, then it is refused, and startTracing leaves it as it is', () => {
    expect(() => registerTracing('other')).toThrow('already on');
    expect(startTracing({ exporter: 'console', protocol: 'http/protobuf' }, 'other')).toBe(false);
  });
});

describe('OTLP export (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)', () => {
  it('given an OTLP/HTTP JSON endpoint, when a span ends and tracing stops, then the collector got it with the service name', async () => {
    const bodies: { path: string; type: string; body: string }[] = [];
    const collector = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        bodies.push({
          path: request.url ?? '',
          type: String(request.headers['content-type']),
          body: Buffer.concat(chunks).toString(),
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
    // In a process of its own: the exporter loads Node's http module with a dynamic import, which jest's sandbox
    // refuses; and as a service does, configured by the environment alone.
    const script = `
      const { inSpan, startTracing, stopTracing, tracerOf } = require(${JSON.stringify(join(__dirname, 'tracing.ts'))});
      startTracing({ exporter: 'otlp', protocol: 'http/json', serviceName: 'lx-test' }, 'svc');
      inSpan(tracerOf('test'), 'exported work', {}, () => Promise.resolve()).then(() => stopTracing());`;
    try {
      await run(process.execPath, ['-r', join(__dirname, '../../../testing/register-swc.js'), '-e', script], {
        env: { ...process.env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint },
        timeout: 30_000,
      });
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
    expect(bodies).toHaveLength(1);
    expect(bodies[0]!.path).toBe('/v1/traces');
    expect(bodies[0]!.type).toMatch(/^application\/json/);
    const sent = JSON.parse(bodies[0]!.body) as {
      resourceSpans: {
        resource: { attributes: { key: string; value: { stringValue?: string } }[] };
        scopeSpans: { scope: { name: string }; spans: { name: string }[] }[];
      }[];
    };
    const [resource] = sent.resourceSpans;
    expect(resource!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'lx-test' } });
    expect(resource!.scopeSpans[0]!.scope.name).toBe('test');
    expect(resource!.scopeSpans[0]!.spans.map((span) => span.name)).toEqual(['exported work']);
  });
});
