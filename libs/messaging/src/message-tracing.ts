import type { Attributes, Span } from '@opentelemetry/api';
import {
  contextOfTraceParent,
  endSpan,
  isTracingOn,
  SpanKind,
  TRACEPARENT,
  tracerOf,
  withTraceHeaders,
} from '@lx/platform';
import type { IncomingMessage, OutgoingMessage } from './event-bus';

const tracer = tracerOf('@lx/messaging');

/** Messages with their spans: the messages carry the spans' trace context; `end` closes the spans with the outcome. */
export interface TracedMessages<M> {
  readonly messages: readonly M[];
  end(error?: unknown): void;
}

interface SpanOf<M> {
  name: string;
  kind: SpanKind;
  attributes: (message: M) => Attributes;
}

/**
 * A span per message that carries a trace context (a `traceparent` header), as that context's child; the message
 * handed on carries the span's own context instead. Messages without one go on as they are; with tracing off, all do
 * (the same array).
 */
function traceEach<M extends { headers?: Record<string, string> }>(
  messages: readonly M[],
  span: SpanOf<M>,
): TracedMessages<M> {
  const spans: Span[] = [];
  const handed = !isTracingOn()
    ? messages
    : messages.map((message) => {
        const traceParent = message.headers?.[TRACEPARENT];
        if (traceParent === undefined) return message;
        const started = tracer.startSpan(
          span.name,
          { kind: span.kind, attributes: span.attributes(message) },
          contextOfTraceParent(traceParent),
        );
        spans.push(started);
        return { ...message, headers: withTraceHeaders({ ...message.headers }, started) };
      });
  return { messages: handed, end: (error) => spans.forEach((each) => endSpan(each, error)) };
}

/**
 * A PRODUCER span for each message that carries a trace context (written with it into an outbox or the event log);
 * its consumers then descend from the publication.
 */
export function tracePublication(
  topicOnLog: string,
  messages: readonly OutgoingMessage[],
): TracedMessages<OutgoingMessage> {
  return traceEach(messages, {
    name: `publish ${topicOnLog}`,
    kind: SpanKind.PRODUCER,
    attributes: (message) => ({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'send',
      'messaging.destination.name': topicOnLog,
      'messaging.kafka.message.key': message.key,
    }),
  });
}

/**
 * A CONSUMER span for each message that carries a trace context, named after the consumer (the projection): what a
 * consumer stores or sends for a message continues the trace from there. Spans end with the transaction that applied
 * them. `topicOnLog` names the topic as the log does (with the deployment's prefix).
 */
export function traceProcessing(
  consumer: { group: string; projection: string },
  topicOnLog: string,
  messages: readonly IncomingMessage[],
): TracedMessages<IncomingMessage> {
  return traceEach(messages, {
    name: `process ${topicOnLog}`,
    kind: SpanKind.CONSUMER,
    attributes: (message) => ({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': topicOnLog,
      'messaging.destination.partition.id': String(message.partition),
      'messaging.kafka.offset': Number(message.offset),
      'messaging.consumer.group.name': consumer.group,
      'lx.projection': consumer.projection,
    }),
  });
}
