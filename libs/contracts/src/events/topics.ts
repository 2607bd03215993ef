/** A Kafka topic as it is created; the message key is always the aggregate id, so one aggregate's events stay in order. */
export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
  /** -1 keeps messages forever. */
  readonly retentionMs: number;
  /** `compact` only where the latest message per key is all a consumer needs. */
  readonly cleanupPolicy: 'delete' | 'compact';
  readonly description: string;
}

/**
 * Every topic, declared once; names are `<context>.<stream>.v<major>`, and on Kafka a deployment's topic prefix goes in
 * front (prefixedName). Read models rebuild by replaying from offset 0.
 */
export const TOPICS = {
  locationEvents: {
    name: 'location.events.v1',
    partitions: 6,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'LOCATION_CREATED / LOCATION_UPDATED keyed by location id: the location event log',
  },
  locationGroupEvents: {
    name: 'location-group.events.v1',
    partitions: 3,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'LOCATION_GROUP_* keyed by location group id',
  },
  addressGroupEvents: {
    name: 'address-group.events.v1',
    partitions: 3,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'ADDRESS_GROUP_* keyed by address group id',
  },
  exportRequests: {
    name: 'export.requests.v1',
    partitions: 3,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'EXPORT_REQUESTED keyed by export request id: work for the export worker',
  },
  exportEvents: {
    name: 'export.events.v1',
    partitions: 3,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'EXPORT_COMPLETED / EXPORT_FAILED keyed by export request id: outcomes to notify RSPs about',
  },
  clientEvents: {
    name: 'client.events.v1',
    partitions: 1,
    retentionMs: -1,
    cleanupPolicy: 'compact',
    description: 'CLIENT_* keyed by client id; every event carries the full client, so compaction keeps the latest',
  },
  webhookEvents: {
    name: 'webhook.events.v1',
    partitions: 1,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'WEBHOOK_ENDPOINT_DISABLED keyed by client id: webhook endpoints the dispatcher stopped sending to',
  },
} as const satisfies Record<string, TopicSpec>;

/** The name of a declared topic. */
export type TopicName = (typeof TOPICS)[keyof typeof TOPICS]['name'];

/** Every declared topic, for creating them at start-up. */
export const ALL_TOPICS: readonly TopicSpec[] = Object.values(TOPICS);

const KAFKA_NAME_PART = /^[A-Za-z0-9._-]+$/;

/** Kafka's longest topic name. */
export const KAFKA_TOPIC_NAME_MAX_LENGTH = 249;

/** Longest consumer group id a service takes from its configuration (PROJECTION_GROUP_ID, WEBHOOK_CONSUMER_GROUP). */
export const CONSUMER_GROUP_MAX_LENGTH = 100;

/**
 * Longest topic prefix (KAFKA_TOPIC_PREFIX). With it, the longest dead-letter topic (a prefix this long, the longest
 * topic, the longest configured group with the dispatcher's `-subscriptions`) stays within Kafka's 249 characters.
 */
export const TOPIC_PREFIX_MAX_LENGTH = 64;

/**
 * What is wrong with a topic prefix, or undefined when nothing is; the empty prefix (the default) means none. The
 * prefix is part of every topic name, so it uses Kafka's characters, and the dot that joins it is added, not typed.
 */
export function topicPrefixProblem(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  if (!KAFKA_NAME_PART.test(prefix)) return 'must be letters, digits, ".", "_" and "-" only';
  if (prefix.startsWith('.') || prefix.endsWith('.')) return 'must not start or end with "."';
  if (prefix.length > TOPIC_PREFIX_MAX_LENGTH) return `must be at most ${TOPIC_PREFIX_MAX_LENGTH} characters`;
  return undefined;
}

/**
 * The name on the Kafka cluster of a declared topic, dead-letter topic or consumer group of the deployment with this
 * prefix: `<prefix>.<name>`, or the name itself when the prefix is empty. Every name of a deployment starts with
 * `<prefix>.`, so ACLs granted by that prefix cover its topics and groups, and no other deployment's.
 */
export function prefixedName(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}.${name}`;
}

/**
 * How many copies of each topic a deployment keeps: its replicas, and the replicas in sync that a write acknowledged
 * by all (`acks=all`) must reach (`min.insync.replicas`). Deployment settings (KAFKA_REPLICATION_FACTOR,
 * KAFKA_MIN_INSYNC_REPLICAS), the same for every topic, dead-letter topics included.
 */
export interface TopicDurability {
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
}

/** A declared topic as Kafka's CreateTopics request takes it (kafkajs `ITopicConfig`), under the name it has there. */
export function topicCreationOf(topic: TopicSpec, durability: TopicDurability, name: string = topic.name) {
  return {
    topic: name,
    numPartitions: topic.partitions,
    replicationFactor: durability.replicationFactor,
    configEntries: [
      { name: 'retention.ms', value: String(topic.retentionMs) },
      { name: 'cleanup.policy', value: topic.cleanupPolicy },
      { name: 'min.insync.replicas', value: String(durability.minInsyncReplicas) },
    ],
  };
}

/** Dead-letter topic of one consumer group on one topic: `<topic>.<group>.dlq`. */
export function dlqTopic(topic: TopicName, group: string): string {
  if (!KAFKA_NAME_PART.test(group)) throw new Error(`consumer group "${group}" cannot be part of a Kafka topic name`);
  return `${topic}.${group}.dlq`;
}

/** Declaration of a dead-letter topic: kept forever, so every dead letter can be inspected and redriven. */
export function dlqTopicSpec(topic: TopicName, group: string): TopicSpec {
  return {
    name: dlqTopic(topic, group),
    partitions: 1,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: `Messages of ${topic} that consumer group ${group} could not process, with the original bytes`,
  };
}
