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

/** A run of consecutive messages of one partition, in offset order. */
export interface IncomingBatch {
  topic: string;
  partition: number;
  messages: readonly IncomingMessage[];
}

/** What a batch handler may do besides processing messages. */
export interface BatchControl {
  /** Marks every message up to and including `offset` consumed; the log records it after the handler returns. */
  markConsumed(offset: string): void;
  /** Tells the group coordinator the member is alive during a long batch. */
  heartbeat(): Promise<void>;
  /**
   * False once the subscription is stopping or the partition was repositioned (seek, rebalance): the rest of the
   * batch will be fetched again, so the handler should return without processing it.
   */
  isActive(): boolean;
}

/** A position in one partition: the offset of the next message to read. */
export interface PartitionPosition {
  topic: string;
  partition: number;
  offset: string;
}

/** The offsets a partition holds: from `low` (the first kept) to `high` (where a reader that has read everything stands). */
export interface PartitionBounds {
  topic: string;
  partition: number;
  low: string;
  high: string;
}

/** A topic and partition assigned to a member of a consumer group. */
export interface AssignedPartition {
  topic: string;
  partition: number;
}

/** What a consumer reports about itself, for readiness and logs. */
export type ConsumerEvent =
  | { type: 'joined'; assigned: readonly AssignedPartition[] }
  | { type: 'crashed'; error: Error; restarting: boolean }
  | { type: 'stopped' };

/**
 * A consumer that receives whole batches and decides itself which offsets count as consumed: for projections that
 * store their offsets with their writes, so a crash at any instant neither loses nor repeats an effect.
 */
export interface BatchSubscription {
  groupId: string;
  topics: readonly string[];
  /** Where a group without committed offsets starts; projections start from the beginning. */
  fromBeginning: boolean;
  /** Batches of different partitions handled at the same time (default 1); one partition's batches never overlap. */
  partitionsConcurrently?: number;
  /** Throwing redelivers every message not yet marked consumed (after a bounded number of retries, the consumer restarts). */
  handleBatch: (batch: IncomingBatch, control: BatchControl) => Promise<void>;
  /**
   * Asked whenever partitions are assigned to this member; the positions returned replace the log's committed
   * offsets (a projection returns the offsets stored in its own database). No batch of the assignment is handed over
   * before they apply (a rejected promise fails the batches until the member rejoins); handlers still tolerate a
   * message delivered twice (a redelivery after a crash).
   */
  positionsFor?: (assigned: readonly AssignedPartition[]) => Promise<readonly PartitionPosition[]>;
  onEvent?: (event: ConsumerEvent) => void;
}

/** A running consumer. */
export interface ConsumerHandle {
  /** Leaves the group after the batch in hand; resolves once stopped. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Port to the event log. Production adapter: Kafka (KafkaEventBus). Topics and consumer groups are named as declared
 * (`location.events.v1`); an adapter may place them under a deployment's prefix on its side.
 */
export abstract class EventBus {
  /** What the log is called where operators read it: its readiness check (`/health/ready`). */
  abstract readonly name: string;
  /** Publishes in the given order; resolves once the log has acknowledged every message. */
  abstract publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  abstract subscribe(subscription: Subscription): Promise<void>;
  abstract subscribeBatches(subscription: BatchSubscription): Promise<ConsumerHandle>;
  /** Per partition of `topic`: the first offset still in the log and the offset after its last message. */
  abstract partitionBounds(topic: string): Promise<readonly PartitionBounds[]>;
  /**
   * The offsets the log itself holds for a consumer group on `topic` (committed by an earlier consumer of the group),
   * per partition that has one. The embedded event log keeps none apart from its consumers: none.
   */
  groupOffsets(groupId: string, topic: string): Promise<readonly PartitionPosition[]> {
    void groupId;
    void topic;
    return Promise.resolve([]);
  }
  /** Deletes consumer groups that no longer have members (e.g. of a finished rebuild); unknown groups are ignored. */
  abstract deleteGroups(groupIds: readonly string[]): Promise<void>;
  /** Creates missing topics as declared; existing topics are left as they are. */
  abstract ensureTopics(topics: readonly TopicSpec[]): Promise<void>;
  /**
   * The name the log itself gives a declared topic, for what leaves the code (the source topic of a dead letter, logs):
   * on Kafka, with the deployment's topic prefix. The embedded event log keeps the declared names.
   */
  topicOnLog(topic: string): string {
    return topic;
  }
  /** Resolves while the log answers; used by readiness. */
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
}
