import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import {
  type Admin,
  ConfigResourceTypes,
  type Consumer,
  type IHeaders,
  Kafka,
  type KafkaMessage,
  logLevel,
  type LogEntry,
  type Message,
  type PartitionMetadata,
  Partitioners,
  type Producer,
} from 'kafkajs';
import { type TopicSpec, topicCreationOf } from '@lx/contracts';
import {
  type AssignedPartition,
  type BatchSubscription,
  type ConsumerHandle,
  EventBus,
  type IncomingMessage,
  type OutgoingMessage,
  type PartitionBounds,
  type PartitionPosition,
  type Subscription,
} from './event-bus';
import { type KafkaConfig, kafkaConnectionOf } from '@lx/platform';
import { KafkaNames } from './kafka-names';
import { clusterSizeProblem, durabilityProblems, type ExistingTopic, TopicDurabilityError } from './topic-durability';

function headersOf(headers: IHeaders | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    result[name] = (Array.isArray(value) ? value[0] : value)?.toString() ?? '';
  }
  return result;
}

/** `topic` is the declared name (the adapter translates). */
function incoming(topic: string, partition: number, message: KafkaMessage): IncomingMessage {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString() ?? null,
    value: message.value,
    headers: headersOf(message.headers),
  };
}

/** Longest wait, after creating topics, for every partition to have a leader. */
const TOPIC_LEADERS_TIMEOUT_MS = 30_000;
/** What a broker answers about a topic just created until the controller's metadata reaches it: asked again. */
const METADATA_NOT_YET_KNOWN = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_FOR_PARTITION',
]);

/**
 * Whether a failure of a new topic's metadata or offsets means "not there yet": an error code of METADATA_NOT_YET_KNOWN,
 * or the TypeError kafkajs' `fetchTopicOffsets` throws when the metadata it read the partitions from is replaced by a
 * refresh (of this admin client, for another topic) that does not list them yet.
 */
function metadataNotYetKnown(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  return METADATA_NOT_YET_KNOWN.has((error as { type?: string }).type ?? '');
}

/** How long the partitions of a topic, read from the cluster's metadata, are kept before they are read again. */
const PARTITION_METADATA_TTL_MS = 5_000;

/**
 * Consumer settings of batch subscriptions. A killed member's partitions move after the session timeout, so it is
 * shorter than kafkajs' 30 s; retries of a failing batch back off up to 5 s, so a projection recovers within seconds
 * of its database coming back, and after the last retry the consumer restarts (and rejoins) instead of giving up.
 */
const BATCH_CONSUMER = {
  sessionTimeout: 10_000,
  heartbeatInterval: 1_000,
  maxWaitTimeInMs: 500,
  retry: { initialRetryTime: 300, maxRetryTime: 5_000, retries: 8 },
} as const;

/** The error names kafkajs never retries: thrown by a batch handler, they would stop the consumer for good. */
const UNRETRIED_BY_KAFKAJS = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError']);

/**
 * A batch handler's failure as kafkajs retries it (with backoff, then restarting the consumer) like any other. kafkajs
 * stops a consumer for good, until the process restarts, on a TypeError and its kind (a bug of ours or of kafkajs, a
 * CI run showed one from kafkajs' own admin client); the projection would then stay failing with nothing retried.
 */
function retriable(error: unknown): unknown {
  if (!(error instanceof Error) || !UNRETRIED_BY_KAFKAJS.has(error.name)) return error;
  return new Error(`${error.name}: ${error.message}`, { cause: error });
}

/**
 * Waits for `pending`, heartbeating every `intervalMs` meanwhile: kafkajs heartbeats only between batches, and a
 * member silent for the session timeout is evicted from its group.
 */
async function untilSettled(pending: Promise<void>, heartbeat: () => Promise<void>, intervalMs: number): Promise<void> {
  let settled = false;
  const done = pending.finally(() => {
    settled = true;
  });
  while (!settled) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      done.catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, intervalMs);
      }),
    ]);
    clearTimeout(timer);
    if (!settled) await heartbeat();
  }
  await done;
}

function kafkaLogger(entry: LogEntry, logger: Logger): void {
  const { message, ...fields } = entry.log;
  const line = { namespace: entry.namespace, ...fields };
  if (entry.level === logLevel.ERROR) logger.error(line, message);
  else if (entry.level === logLevel.WARN) logger.warn(line, message);
  else logger.debug(line, message);
}

/**
 * kafkajs adapter. The producer is idempotent with one request in flight, so retries neither
 * duplicate nor reorder messages of one partition (and so of one key). Callers use declared topic names and group
 * ids; on the cluster each carries the deployment's topic prefix (KafkaNames), and what comes back (messages,
 * assignments, bounds) carries the declared names again.
 *
 * Durability: every send waits for all in-sync replicas (acks=all; kafkajs' default of -1, and its idempotent producer
 * refuses any other), and the topics are created with KAFKA_REPLICATION_FACTOR replicas and KAFKA_MIN_INSYNC_REPLICAS,
 * so an acknowledged event is on that many brokers and survives the loss of its partition's leader.
 */
export class KafkaEventBus extends EventBus {
  readonly name = 'kafka';
  private readonly logger = new Logger(KafkaEventBus.name);
  private readonly names: KafkaNames;
  private readonly kafka: Kafka;
  private readonly admin: Admin;
  private readonly producer: Producer;
  private readonly consumers: Consumer[] = [];
  /** The producer's partitioner, applied by publish() itself to send each partition apart. */
  private readonly partitioner = Partitioners.DefaultPartitioner();
  /** The last `ensureTopics` call, settled: the next one starts after it. */
  private topicsEnsured: Promise<unknown> = Promise.resolve();
  private readonly partitionMetadata = new Map<string, { at: number; partitions: PartitionMetadata[] }>();
  private connected?: Promise<void>;

  constructor(private readonly config: Readonly<KafkaConfig>) {
    super();
    this.names = new KafkaNames(config.topicPrefix);
    this.kafka = new Kafka({
      ...kafkaConnectionOf(config),
      connectionTimeout: 3_000,
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => kafkaLogger(entry, this.logger),
    });
    this.admin = this.kafka.admin({ retry: { retries: 1 } });
    this.producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  private connect(): Promise<void> {
    this.connected ??= Promise.all([this.admin.connect(), this.producer.connect()]).then(() => undefined);
    return this.connected;
  }

  /**
   * One acknowledged send per partition leader, all under way together, each checked for every partition it wrote
   * to. A send of kafkajs 2.2.4 that spans brokers loses messages when a leader fails: its retry skips every broker
   * that answered the first try, also for the partitions that moved to that broker from the failed one, and resolves
   * as if they were written (measured: 59 of 10,001 events missing after a SIGKILL of a leader,
   * broker-failover.int-spec.ts). A send to one broker has no other broker that answered: its retry reaches every new
   * leader. Each message gets its partition here (the producer's own default partitioner, over the topic's
   * partitions); should the leaders seen here be stale and a send span brokers after all, an answer that lacks a
   * partition fails the publish, and the caller sends again (at least once; consumers dedupe): nothing is lost.
   */
  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.connect();
    const name = this.names.onCluster(topic);
    const partitionMetadata = await this.partitionsOf(name);
    const byLeader = new Map<number, { partitions: Set<number>; messages: Message[] }>();
    for (const { key, value, headers } of messages) {
      const partition = this.partitioner({ topic: name, partitionMetadata, message: { key, value, headers } });
      const leader = partitionMetadata.find((each) => each.partitionId === partition)?.leader ?? -1;
      let send = byLeader.get(leader);
      if (send === undefined) byLeader.set(leader, (send = { partitions: new Set(), messages: [] }));
      send.partitions.add(partition);
      send.messages.push({ key, value, headers, partition });
    }
    try {
      await Promise.all([...byLeader.values()].map((send) => this.sendChecked(name, send.partitions, send.messages)));
    } catch (error) {
      this.partitionMetadata.delete(name);
      throw error;
    }
  }

  private async sendChecked(topic: string, partitions: ReadonlySet<number>, messages: Message[]): Promise<void> {
    const answered = new Set((await this.producer.send({ topic, messages })).map((each) => each.partition));
    const unanswered = [...partitions].filter((partition) => !answered.has(partition));
    if (unanswered.length > 0) {
      throw new Error(
        `Kafka acknowledged no write to partition(s) ${unanswered.join(', ')} of ${topic}: kafkajs dropped them ` +
          'while retrying after a leader change; the messages must be sent again',
      );
    }
  }

  /** A topic's partitions and their leaders, read again after a few seconds or a failed send. */
  private async partitionsOf(topic: string): Promise<PartitionMetadata[]> {
    const cached = this.partitionMetadata.get(topic);
    if (cached !== undefined && Date.now() - cached.at < PARTITION_METADATA_TTL_MS) return cached.partitions;
    const { topics } = await this.admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = topics.find((each) => each.name === topic)?.partitions ?? [];
    if (partitions.length === 0) throw new Error(`topic ${topic} has no partitions in the cluster's metadata`);
    this.partitionMetadata.set(topic, { at: Date.now(), partitions });
    return partitions;
  }

  override topicOnLog(topic: string): string {
    return this.names.onCluster(topic);
  }

  async subscribe(subscription: Subscription): Promise<void> {
    const consumer = this.kafka.consumer({ groupId: this.names.onCluster(subscription.groupId) });
    this.consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({
      topics: this.allOnCluster(subscription.topics),
      fromBeginning: subscription.fromBeginning,
    });
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) =>
        subscription.handle(incoming(this.names.declared(topic), partition, message)),
    });
  }

  async subscribeBatches(subscription: BatchSubscription): Promise<ConsumerHandle> {
    const consumer = this.kafka.consumer({ groupId: this.names.onCluster(subscription.groupId), ...BATCH_CONSUMER });
    this.consumers.push(consumer);
    const report = subscription.onEvent ?? (() => undefined);
    // The positions of the latest assignment. kafkajs fetches from its own default (the committed offset, or the
    // beginning) as soon as the group is joined; no batch is handed over before the positions are known and sought.
    let positioned: Promise<void> = Promise.resolve();
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const assigned: AssignedPartition[] = Object.entries(payload.memberAssignment).flatMap(([topic, partitions]) =>
        partitions.map((partition) => ({ topic: this.names.declared(topic), partition })),
      );
      report({ type: 'joined', assigned });
      if (subscription.positionsFor && assigned.length > 0) {
        // seek() applies before the next fetch of the partition and marks batches fetched before it stale.
        positioned = subscription
          .positionsFor(assigned)
          .then((positions) =>
            positions.forEach((position) =>
              consumer.seek({ ...position, topic: this.names.onCluster(position.topic) }),
            ),
          );
        // Batches fail (and the consumer restarts and joins again) until positions are found; logged once here.
        positioned.catch((error: unknown) =>
          this.logger.warn({ groupId: subscription.groupId, err: String(error) }, 'Could not position consumer'),
        );
      }
    });
    consumer.on(consumer.events.CRASH, ({ payload }) =>
      report({ type: 'crashed', error: payload.error, restarting: payload.restart }),
    );
    consumer.on(consumer.events.STOP, () => report({ type: 'stopped' }));
    await consumer.connect();
    await consumer.subscribe({
      topics: this.allOnCluster(subscription.topics),
      fromBeginning: subscription.fromBeginning,
    });
    await consumer.run({
      // Only what the handler marks counts as consumed: a batch cut short by shutdown is fetched again.
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: subscription.partitionsConcurrently ?? 1,
      eachBatch: async (payload) => {
        await untilSettled(positioned, () => payload.heartbeat(), BATCH_CONSUMER.heartbeatInterval);
        if (payload.isStale()) return;
        const { batch } = payload;
        const topic = this.names.declared(batch.topic);
        await subscription
          .handleBatch(
            {
              topic,
              partition: batch.partition,
              messages: batch.messages.map((message) => incoming(topic, batch.partition, message)),
            },
            {
              markConsumed: (offset) => payload.resolveOffset(offset),
              heartbeat: () => payload.heartbeat(),
              isActive: () => payload.isRunning() && !payload.isStale(),
            },
          )
          .catch((error: unknown) => {
            throw retriable(error);
          });
        await payload.commitOffsetsIfNecessary();
      },
    });
    let stopped: Promise<void> | undefined;
    return {
      stop: () => {
        stopped ??= consumer.disconnect().finally(() => {
          const index = this.consumers.indexOf(consumer);
          if (index >= 0) this.consumers.splice(index, 1);
        });
        return stopped;
      },
    };
  }

  async partitionBounds(topic: string): Promise<readonly PartitionBounds[]> {
    await this.connect();
    const offsets = await this.admin.fetchTopicOffsets(this.names.onCluster(topic));
    return offsets.map(({ partition, low, high }) => ({ topic, partition, low, high }));
  }

  override async groupOffsets(groupId: string, topic: string): Promise<readonly PartitionPosition[]> {
    await this.connect();
    const [committed] = await this.admin.fetchOffsets({
      groupId: this.names.onCluster(groupId),
      topics: [this.names.onCluster(topic)],
    });
    return (committed?.partitions ?? [])
      .filter(({ offset }) => offset !== '-1')
      .map(({ partition, offset }) => ({ topic, partition, offset }));
  }

  async deleteGroups(groupIds: readonly string[]): Promise<void> {
    if (groupIds.length === 0) return;
    await this.connect();
    try {
      await this.admin.deleteGroups(this.allOnCluster(groupIds));
    } catch (error) {
      // GROUP_ID_NOT_FOUND for groups that never committed; nothing to clean up then.
      this.logger.debug({ groupIds, err: String(error) }, 'Consumer groups not deleted');
    }
  }

  /**
   * Creates the missing topics with the configured replicas and min.insync.replicas, and refuses (TopicDurabilityError)
   * when existing ones have less, or when the cluster has too few brokers to create them: a service does not start on
   * topics that would lose acknowledged events. Dead-letter topics go through here too and get the same settings:
   * a dead letter is the only copy of an event the projection could not apply. Cheap whatever the number of topics:
   * the topic list, one metadata request and one describeConfigs for the existing ones, the cluster's brokers when
   * some are missing.
   */
  ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    // One at a time: the admin client keeps one metadata cache, which each call refreshes for the topics it asks
    // about. Two projections dead-lettering the same message at once created its topic together, and one's read of the
    // new topic's offsets met the metadata the other's refresh had just replaced (kafkajs then fails with a TypeError).
    const run = this.topicsEnsured.then(() => this.ensureTopicsNow(topics));
    this.topicsEnsured = run.catch(() => undefined);
    return run;
  }

  private async ensureTopicsNow(topics: readonly TopicSpec[]): Promise<void> {
    await this.connect();
    const onCluster = topics.map((topic) => ({ ...topic, name: this.names.onCluster(topic.name) }));
    const existing = new Set(await this.admin.listTopics());
    const missing = onCluster.filter((topic) => !existing.has(topic.name));
    const present = onCluster.filter((topic) => existing.has(topic.name)).map((topic) => topic.name);
    // Only topics to create need the brokers up now; existing ones are judged by their replicas, so a service still
    // starts while one broker of three is down (a rolling restart of Kafka).
    const tooFewBrokers =
      missing.length > 0
        ? clusterSizeProblem((await this.admin.describeCluster()).brokers.length, this.config)
        : undefined;
    const problems = [
      ...(tooFewBrokers === undefined ? [] : [tooFewBrokers]),
      ...durabilityProblems(await this.existingTopics(present), this.config),
    ];
    if (problems.length > 0) throw new TopicDurabilityError(problems);
    if (missing.length === 0) return;
    // A topic another replica creates meanwhile is TOPIC_ALREADY_EXISTS, which kafkajs ignores; it was created with
    // the same settings (every service of a deployment has them).
    await this.admin.createTopics({
      waitForLeaders: false,
      topics: missing.map((topic) => topicCreationOf(topic, this.config)),
    });
    await this.awaitLeaders(missing.map((topic) => topic.name));
    this.logger.log(
      {
        topics: missing.map((topic) => topic.name),
        replicationFactor: this.config.replicationFactor,
        minInsyncReplicas: this.config.minInsyncReplicas,
      },
      'Created topics',
    );
  }

  /**
   * Waits until every partition of newly created topics has a leader that answers. kafkajs's own wait
   * (`waitForLeaders`) gives up at the first UNKNOWN_TOPIC_OR_PARTITION, which a broker answers until the controller's
   * new metadata reaches it (a busy machine showed it: "This server does not host this topic-partition" from
   * createTopics); this one retries that as well as LEADER_NOT_AVAILABLE, for at most TOPIC_LEADERS_TIMEOUT_MS. A
   * leader named in the metadata may still refuse reads for a moment (NOT_LEADER_FOR_PARTITION from ListOffsets: the
   * broker's metadata cache is ahead of its replica manager; a CI run showed it), so the wait ends only once every
   * partition's offsets are answered.
   */
  private async awaitLeaders(names: readonly string[]): Promise<void> {
    const deadline = Date.now() + TOPIC_LEADERS_TIMEOUT_MS;
    for (;;) {
      try {
        const { topics } = await this.admin.fetchTopicMetadata({ topics: [...names] });
        const led = topics.filter(
          (topic) => topic.partitions.length > 0 && topic.partitions.every((partition) => partition.leader >= 0),
        );
        if (led.length === names.length) {
          await Promise.all(names.map((name) => this.admin.fetchTopicOffsets(name)));
          return;
        }
      } catch (error) {
        if (!metadataNotYetKnown(error)) throw error;
      }
      if (Date.now() >= deadline) {
        throw new Error(
          `the new topics ${names.join(', ')} have no leader for every partition after ${TOPIC_LEADERS_TIMEOUT_MS} ms`,
        );
      }
      await sleep(100);
    }
  }

  /** The replicas and effective min.insync.replicas of existing topics, by their names on the cluster. */
  private async existingTopics(names: readonly string[]): Promise<ExistingTopic[]> {
    if (names.length === 0) return [];
    const [metadata, configs] = await Promise.all([
      this.admin.fetchTopicMetadata({ topics: [...names] }),
      this.admin.describeConfigs({
        includeSynonyms: false,
        resources: names.map((name) => ({
          type: ConfigResourceTypes.TOPIC,
          name,
          configNames: ['min.insync.replicas'],
        })),
      }),
    ]);
    const minInsync = new Map(
      configs.resources.map((resource) => [
        resource.resourceName,
        resource.configEntries.find((entry) => entry.configName === 'min.insync.replicas')?.configValue,
      ]),
    );
    return metadata.topics.map((topic) => {
      const value = minInsync.get(topic.name);
      return {
        name: topic.name,
        replicas: Math.min(...topic.partitions.map((partition) => partition.replicas.length)),
        minInsyncReplicas: value === undefined || !/^\d+$/.test(value) ? undefined : Number(value),
      };
    });
  }

  async ping(): Promise<void> {
    await this.connect();
    await this.admin.describeCluster();
  }

  async close(): Promise<void> {
    await Promise.allSettled([
      ...this.consumers.map((consumer) => consumer.disconnect()),
      this.producer.disconnect(),
      this.admin.disconnect(),
    ]);
  }

  private allOnCluster(names: readonly string[]): string[] {
    return names.map((name) => this.names.onCluster(name));
  }
}
