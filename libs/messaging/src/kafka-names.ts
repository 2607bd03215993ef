import { prefixedName } from '@lx/contracts';

/**
 * One deployment's names on a shared Kafka cluster: its topics, dead-letter topics and consumer groups under its topic
 * prefix (KAFKA_TOPIC_PREFIX, see prefixedName). The code speaks the declared names of @lx/contracts; the Kafka
 * adapters translate at the edge, so handlers see declared names and the offsets stored with read models do not
 * depend on the prefix.
 */
export class KafkaNames {
  /** What every name of the deployment starts with: `<prefix>.`, or nothing. */
  private readonly head: string;

  constructor(prefix: string) {
    this.head = prefixedName(prefix, '');
  }

  /** The name on the cluster of a declared topic or consumer group. */
  onCluster(name: string): string {
    return this.head + name;
  }

  /** The declared name of one of the deployment's topics, given its name on the cluster. */
  declared(onCluster: string): string {
    return onCluster.startsWith(this.head) ? onCluster.slice(this.head.length) : onCluster;
  }
}
