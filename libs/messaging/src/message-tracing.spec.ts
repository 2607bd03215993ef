import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { registerTracing, stopTracing } from '@lx/platform';
import type { IncomingMessage, OutgoingMessage } from './event-bus';
import { tracePublication, traceProcessing } from './message-tracing';

const STORED = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const outgoing: OutgoingMessage[] = [
  { key: 'a', value: '1', headers: { 'lx-aggregate-version': '1', traceparent: STORED } },
  { key: 'b', value: '2', headers: { 'lx-aggregate-version': '1' } },
];
const incoming = (offset: string, headers: Record<string, string>): IncomingMessage => ({
  topic: 'location.events.v1',
  partition: 2,
  offset,
  key: 'a',
  value: Buffer.from('{}'),
  headers,
});

describe('message tracing', () => {
  afterEach(() => stopTracing());

  it('given tracing off, when traced, then the messages are handed on as they are', () => {
    expect(tracePublication('t', outgoing).messages).toBe(outgoing);
    const messages = [incoming('1', { traceparent: STORED })];
    expect(traceProcessing({ group: 'g', projection: 'p' }, 't', messages).messages).toBe(messages);
  });

  describe('with tracing on', () => {
    let exporter: InMemorySpanExporter;
    beforeEach(() => {
      exporter = new InMemorySpanExporter();
      registerTracing('svc', new SimpleSpanProcessor(exporter));
    });

    it('given messages with and without a stored context, when published, then each traced one gets a PRODUCER span under it and carries that span', () => {
      const traced = tracePublication('lx.location.events.v1', outgoing);
      expect(exporter.getFinishedSpans()).toHaveLength(0);
      traced.end();
      const [span] = exporter.getFinishedSpans();
      expect(exporter.getFinishedSpans()).toHaveLength(1);
      expect(span!.name).toBe('publish lx.location.events.v1');
      expect(span!.kind).toBe(SpanKind.PRODUCER);
      expect(span!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(span!.attributes).toMatchObject({
        'messaging.system': 'kafka',
        'messaging.destination.name': 'lx.location.events.v1',
        'messaging.kafka.message.key': 'a',
      });
      const { traceId, spanId } = span!.spanContext();
      expect(traced.messages[0]!.headers).toEqual({
        'lx-aggregate-version': '1',
        traceparent: `00-${traceId}-${spanId}-01`,
      });
      expect(traced.messages[1]).toBe(outgoing[1]);
      expect(outgoing[0]!.headers!.traceparent).toBe(STORED);
    });

    it('given consumed messages, when processed and failed, then each traced one has a failed CONSUMER span the handler sees', () => {
      const messages = [incoming('7', { traceparent: STORED }), incoming('8', {})];
      const traced = traceProcessing({ group: 'lq', projection: 'location-read-model' }, 'lx.t', messages);
      traced.end(new Error('database gone'));
      const [span] = exporter.getFinishedSpans();
      expect(exporter.getFinishedSpans()).toHaveLength(1);
      expect(span!.name).toBe('process lx.t');
      expect(span!.kind).toBe(SpanKind.CONSUMER);
      expect(span!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'database gone' });
      expect(span!.attributes).toMatchObject({
        'messaging.destination.partition.id': '2',
        'messaging.kafka.offset': 7,
        'messaging.consumer.group.name': 'lq',
        'lx.projection': 'location-read-model',
      });
      expect(traced.messages[0]!.headers.traceparent).toBe(
        `00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`,
      );
      expect(traced.messages[1]).toBe(messages[1]);
    });
  });
});
