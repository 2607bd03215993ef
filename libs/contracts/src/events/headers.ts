/** Kafka header names for internal metadata; the event body stays the public OAF-100 envelope. */
export const KAFKA_HEADERS = {
  /** Version of the aggregate after this event, as a decimal string starting at 1; projections guard on it. */
  aggregateVersion: 'lx-aggregate-version',
  /** Correlation id that follows a request from the HTTP edge through events into outgoing webhooks. */
  correlationId: 'lx-correlation-id',
  /** W3C trace context. */
  traceparent: 'traceparent',
  /** Dead letters: the topic the message was consumed from, as named on the log (with the deployment's prefix). */
  dlqSourceTopic: 'lx-dlq-source-topic',
  /** Dead letters: its partition, as a decimal string. */
  dlqSourcePartition: 'lx-dlq-source-partition',
  /** Dead letters: its offset, as a decimal string. */
  dlqSourceOffset: 'lx-dlq-source-offset',
  /** Dead letters: why processing failed. */
  dlqError: 'lx-dlq-error',
} as const;
