import type { TopicDurability } from '@lx/contracts';

/** An existing topic as the broker reports it: its name on the cluster and what keeps its writes. */
export interface ExistingTopic {
  readonly name: string;
  /** The fewest replicas any of its partitions has (the metadata's replica list, offline replicas included). */
  readonly replicas: number;
  /** Its effective `min.insync.replicas` (its own, or the broker's default); undefined when the broker gave none. */
  readonly minInsyncReplicas: number | undefined;
}

/**
 * Kafka would not keep the deployment's events as durably as configured: too few brokers to create topics with the
 * configured replicas, or existing topics with fewer replicas or a lower `min.insync.replicas`. A service refuses to
 * start with it rather than run with events a single broker failure can lose.
 */
export class TopicDurabilityError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `Kafka topics would be less durable than configured:\n${problems.map((problem) => `  - ${problem}`).join('\n')}` +
        '\nRaise the topics or the cluster as shown, or lower KAFKA_REPLICATION_FACTOR / KAFKA_MIN_INSYNC_REPLICAS ' +
        '(docs/configuration.md).',
    );
  }
}

const replicasOf = (count: number) => `${count} ${count === 1 ? 'replica' : 'replicas'}`;

/** Why topics cannot be created with the configured replicas on a cluster of `brokers` live brokers, if they cannot. */
export function clusterSizeProblem(brokers: number, configured: TopicDurability): string | undefined {
  if (brokers >= configured.replicationFactor) return undefined;
  return (
    `the Kafka cluster has ${brokers} ${brokers === 1 ? 'broker' : 'brokers'} up, fewer than ` +
    `KAFKA_REPLICATION_FACTOR (${configured.replicationFactor}), so a topic cannot get ${replicasOf(configured.replicationFactor)}: ` +
    'start more brokers, or set KAFKA_REPLICATION_FACTOR and KAFKA_MIN_INSYNC_REPLICAS to what the cluster has ' +
    '(1 and 1 for a single broker, which keeps no copy of an event if it fails)'
  );
}

/**
 * What is below the configured durability in each existing topic, with the command that raises it. More than
 * configured is fine (a topic an operator raised by hand stays as it is).
 */
export function durabilityProblems(topics: readonly ExistingTopic[], configured: TopicDurability): string[] {
  const problems: string[] = [];
  for (const topic of topics) {
    if (topic.replicas < configured.replicationFactor) {
      problems.push(
        `topic ${topic.name} has ${replicasOf(topic.replicas)}, KAFKA_REPLICATION_FACTOR is ` +
          `${configured.replicationFactor}: add replicas with kafka-reassign-partitions.sh --execute (a plan that ` +
          `lists ${configured.replicationFactor} brokers for each partition)`,
      );
    }
    if (topic.minInsyncReplicas === undefined) {
      problems.push(`topic ${topic.name}: the broker reported no min.insync.replicas`);
    } else if (topic.minInsyncReplicas < configured.minInsyncReplicas) {
      problems.push(
        `topic ${topic.name} has min.insync.replicas=${topic.minInsyncReplicas}, KAFKA_MIN_INSYNC_REPLICAS is ` +
          `${configured.minInsyncReplicas}: kafka-configs.sh --alter --entity-type topics --entity-name ${topic.name} ` +
          `--add-config min.insync.replicas=${configured.minInsyncReplicas}`,
      );
    }
  }
  return problems;
}
