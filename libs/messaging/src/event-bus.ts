import type { TopicSpec } from '@lx/contracts';

/** A message to publish; `key` is the aggregate id, so all events of one aggregate keep their order. */
export interface OutgoingMessage {
  key: string;
  value: string | Buffer;
  headers?: Record<string, string>;
}

/** A consumed message with its position, so projections can store offsets with their writes. */
export interface IncomingMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  headers: Record<string, string>;
}

export interface Subscription {
  groupId: string;
  topics: readonly string[];
  /** Where a group without committed offsets starts; projections start from the beginning. */
  fromBeginning: boolean;
  /** Resolving marks the message consumed; throwing redelivers it. */
  handle(message: IncomingMessage): Promise<void>;
}

/** Port to the event log. Production adapter: Kafka (KafkaEventBus). */
export abstract class EventBus {
  /** Publishes in the given order; resolves once the log has acknowledged every message. */
  abstract publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  abstract subscribe(subscription: Subscription): Promise<void>;
  /** Creates missing topics as declared; existing topics are left as they are. */
  abstract ensureTopics(topics: readonly TopicSpec[]): Promise<void>;
  /** Resolves while the log answers; used by readiness. */
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
}
