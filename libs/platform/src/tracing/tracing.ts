import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TracingConfig } from '../config/config';

export { SpanKind } from '@opentelemetry/api';

/** The W3C header that carries a trace's context (`00-<trace id>-<parent span id>-<flags>`). */
export const TRACEPARENT = 'traceparent';

let provider: NodeTracerProvider | undefined;

/**
 * Turns tracing on in this process, once: spans go to the exporter OTEL_TRACES_EXPORTER names (see TracingConfig),
 * batched; the W3C trace context propagator and an AsyncLocalStorage context manager are registered, so the span of
 * a request is the parent of what its handlers start. The OTLP exporter, the sampler (OTEL_TRACES_SAMPLER,
 * OTEL_TRACES_SAMPLER_ARG) and the batching (OTEL_BSP_*) read their standard variables themselves. With the exporter
 * `none` (the default) nothing is registered and every tracing call below is OpenTelemetry's no-op. False when it
 * was off or already on (the embedded host starts six services in one process: the first names the process).
 */
export function startTracing(config: Readonly<TracingConfig>, service: string): boolean {
  if (config.exporter === 'none' || provider !== undefined) return false;
  registerTracing(config.serviceName ?? service, new BatchSpanProcessor(exporterOf(config)));
  return true;
}

/** Whether spans are recorded in this process (startTracing or registerTracing ran). */
export function isTracingOn(): boolean {
  return provider !== undefined;
}

/** Registers a tracer provider with these span processors (a test's in-memory exporter); replaces none already on. */
export function registerTracing(serviceName: string, ...processors: SpanProcessor[]): void {
  if (provider !== undefined) throw new Error('tracing is already on in this process');
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'service.namespace': 'location-exchange' }),
    spanProcessors: processors,
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
}

/** Sends the spans still buffered and turns tracing off (at shutdown); nothing when it was off. */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = undefined;
  if (stopping === undefined) return;
  await stopping.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
}

function exporterOf(config: Readonly<TracingConfig>): SpanExporter {
  if (config.exporter === 'console') return new ConsoleSpanExporter();
  return config.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
}

/**
 * The tracer of one service or library: its name is the instrumentation scope every span of it carries. It asks the
 * registered provider at each span (a provider caches its tracers by name), so a tracer made at module load follows
 * tracing being turned on, off and on again (tests do; OpenTelemetry's own proxy keeps the first provider).
 */
export function tracerOf(scope: string): Tracer {
  return {
    startSpan: (name, options, parent) => trace.getTracer(scope).startSpan(name, options, parent),
    startActiveSpan: ((...args: Parameters<Tracer['startActiveSpan']>) =>
      (trace.getTracer(scope).startActiveSpan as (...all: unknown[]) => unknown)(...args)) as Tracer['startActiveSpan'],
  };
}

/** The W3C traceparent of `ctx` (the active context by default) when a span is recording there; else undefined. */
export function traceParentOf(ctx: Context = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier[TRACEPARENT];
}

/** The context a stored or received traceparent continues; the root context without one (or with tracing off). */
export function contextOfTraceParent(traceParent: string | null | undefined): Context {
  if (traceParent === undefined || traceParent === null) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { [TRACEPARENT]: traceParent });
}

/** The context that W3C headers of a request or message continue (traceparent, tracestate). */
export function contextOfHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/**
 * `headers` with the W3C headers of `span` (the active span without one) added, for a request or message it sends;
 * the same object with tracing off.
 */
export function withTraceHeaders<H extends Record<string, string>>(headers: H, span?: Span): H {
  const carrier: Record<string, string> = {};
  propagation.inject(span === undefined ? context.active() : trace.setSpan(context.active(), span), carrier);
  return Object.keys(carrier).length === 0 ? headers : { ...headers, ...carrier };
}

/** Ends a span with the outcome of its work: an error (or a reason in words) marks it failed, with its message. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    const message = typeof error === 'string' ? error : error instanceof Error ? error.message : JSON.stringify(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
    if (error instanceof Error) span.recordException(error);
  }
  span.end();
}

export interface SpanSettings {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; the active context by default. */
  parent?: Context;
}

/** Runs `work` in a new span, active while it runs (so what it starts is its child), and ends it with its outcome. */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  settings: SpanSettings,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = settings.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    { kind: settings.kind ?? SpanKind.INTERNAL, attributes: settings.attributes },
    parent,
  );
  try {
    const result = await context.with(trace.setSpan(parent, span), () => work(span));
    endSpan(span);
    return result;
  } catch (error) {
    endSpan(span, error);
    throw error;
  }
}
