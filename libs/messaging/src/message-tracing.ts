import type { Span } from '@opentelemetry/api';
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

function untraced<M>(messages: readonly M[]): TracedMessages<M> {
  return { messages, end: () => undefined };
}

function traced<M>(messages: readonly M[], spans: readonly Span[]): TracedMessages<M> {
  return spans.length === 0
    ? untraced(messages)
    : { messages, end: (error) => spans.forEach((s) => endSpan(s, error)) };
}

/**
 * A PRODUCER span for each message that carries a trace context (written with it into an outbox or the event log),
 * as that context's child; the message then carries the span's own context, so its consumers descend from the
 * publication. Messages without one are sent as they are; with tracing off, all are.
 */
export function tracePublication(
  topicOnLog: string,
  messages: readonly OutgoingMessage[],
): TracedMessages<OutgoingMessage> {
  if (!isTracingOn()) return untraced(messages);
  const spans: Span[] = [];
  const sent = messages.map((message) => {
    const traceParent = message.headers?.[TRACEPARENT];
    if (traceParent === undefined) return message;
    const span = tracer.startSpan(
      `publish ${topicOnLog}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.destination.name': topicOnLog,
          'messaging.kafka.message.key': message.key,
        },
      },
      contextOfTraceParent(traceParent),
    );
    spans.push(span);
    return { ...message, headers: withTraceHeaders({ ...message.headers }, span) };
  });
  return traced(sent, spans);
}

/**
 * A CONSUMER span for each message that carries a trace context, as its child, named after the consumer (the
 * projection): the messages handed on carry the span's context in their `traceparent` header, so what a consumer
 * stores or sends for a message continues the trace from there. Spans end with the transaction that applied them.
 * `topicOnLog` names the topic as the log does (with the deployment's prefix).
 */
export function traceProcessing(
  consumer: { group: string; projection: string },
  topicOnLog: string,
  messages: readonly IncomingMessage[],
): TracedMessages<IncomingMessage> {
  if (!isTracingOn()) return untraced(messages);
  const spans: Span[] = [];
  const handed = messages.map((message) => {
    const traceParent = message.headers[TRACEPARENT];
    if (traceParent === undefined) return message;
    const span = tracer.startSpan(
      `process ${topicOnLog}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'process',
          'messaging.destination.name': topicOnLog,
          'messaging.destination.partition.id': String(message.partition),
          'messaging.kafka.offset': Number(message.offset),
          'messaging.consumer.group.name': consumer.group,
          'lx.projection': consumer.projection,
        },
      },
      contextOfTraceParent(traceParent),
    );
    spans.push(span);
    return { ...message, headers: withTraceHeaders({ ...message.headers }, span) };
  });
  return traced(handed, spans);
}
