// Loaded by the integration tests' jest environment and globalSetup too, which run outside jest's moduleNameMapper:
// relative imports only, and types from the aliases.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import type { EventBusConfig, KafkaConfig } from '@lx/platform';
// eslint-disable-next-line @nx/enforce-module-boundaries, lx/no-relative-import-outside-project -- see the top
import { kafkaConnectionOf } from '../../platform/src/config/kafka-connection';
// eslint-disable-next-line @nx/enforce-module-boundaries, lx/no-relative-import-outside-project -- see the top
import { ALL_TOPICS, prefixedName, type TopicDurability, topicCreationOf } from '../../contracts/src/events/topics';
import { requireEnv, uniqueSuffix } from './infra-env';

/**
 * The replicas and min.insync.replicas of the local Kafka's topics: what deploy/local wrote to .infra/env beside
 * KAFKA_BROKERS, 1 and 1 (its single broker) when it wrote none. Every topic a test or benchmark creates gets them, and
 * so does every service it starts (PrivateTopics.env), which would otherwise ask the single broker for three replicas.
 */
export function testDurability(env: NodeJS.ProcessEnv = process.env): TopicDurability {
  return {
    replicationFactor: Number(env['KAFKA_REPLICATION_FACTOR'] || '1'),
    minInsyncReplicas: Number(env['KAFKA_MIN_INSYNC_REPLICAS'] || '1'),
  };
}

/** How the local Kafka is logged into: what deploy/local wrote to .infra/env (its admin user, TLS with its own CA). */
export type KafkaLogin = Pick<KafkaConfig, 'tls' | 'sasl'>;

/**
 * The login of `env` (KAFKA_TLS, KAFKA_TLS_CA_FILE, KAFKA_SASL_*, as a service reads them): tests, benchmarks and the
 * services they start all log in as the local Kafka's admin, a super user; what each service's own principal may do
 * is kafka-acls.int-spec.ts's subject.
 */
export function testKafkaLogin(env: NodeJS.ProcessEnv = process.env): KafkaLogin {
  const caFile = env['KAFKA_TLS_CA_FILE'];
  const username = env['KAFKA_SASL_USERNAME'];
  const mechanism = (env['KAFKA_SASL_MECHANISM'] || 'scram-sha-512') as NonNullable<KafkaLogin['sasl']>['mechanism'];
  return {
    ...(env['KAFKA_TLS'] === 'true' && { tls: caFile ? { ca: readFileSync(caFile, 'utf8') } : {} }),
    ...(username && { sasl: { mechanism, username, password: env['KAFKA_SASL_PASSWORD'] ?? '' } }),
  };
}

/** A kafkajs client of a test or benchmark: on the local Kafka as .infra/env names it, or on `kafka`. */
export function testKafkaClient(
  clientId = `it-${uniqueSuffix()}`,
  kafka: Pick<KafkaConfig, 'brokers'> & KafkaLogin = {
    brokers: requireEnv('KAFKA_BROKERS').split(','),
    ...testKafkaLogin(),
  },
): Kafka {
  return new Kafka({ ...kafkaConnectionOf({ ...kafka, clientId }), logLevel: logLevel.NOTHING });
}

/**
 * What a test's or benchmark's own Kafka clients need: the brokers, the login and the topic prefix. A service's
 * KafkaConfig is one; raw kafkajs clients put the prefix before every topic and group themselves.
 */
export type PrefixedKafka = Pick<KafkaConfig, 'brokers' | 'topicPrefix'> & KafkaLogin;

/**
 * The Kafka of the running test file: the local brokers and the topic prefix its jest environment gave it
 * (KAFKA_TOPIC_PREFIX of `env`, see integration-environment.ts; a benchmark's from createPrivateTopics), with a client
 * id of its own. Never without a prefix, so no test reaches the topics a running stack consumes.
 */
export function testKafka(clientId = `it-${uniqueSuffix()}`, env: NodeJS.ProcessEnv = process.env): KafkaConfig {
  const topicPrefix = env['KAFKA_TOPIC_PREFIX'];
  if (!topicPrefix) {
    throw new Error('KAFKA_TOPIC_PREFIX is not set: tests and benchmarks run on topics of their own (kafka-topics.ts)');
  }
  return {
    brokers: requireEnv('KAFKA_BROKERS').split(','),
    clientId,
    topicPrefix,
    ...testDurability(env),
    ...testKafkaLogin(env),
  };
}

/** The name on the broker of a declared topic, dead-letter topic or consumer group of the running test file. */
export function testTopic(declared: string): string {
  return prefixedName(requireEnv('KAFKA_TOPIC_PREFIX'), declared);
}

/** Prefixes are `<label>-<creation time, base 36>-<random>`: the time lets a later run delete those a killed run left. */
const PREFIX_PATTERN = /^(lxit|lxbench)-([0-9a-z]+)-[0-9a-f]+$/;

/** Topics and consumer groups of one's own on the shared broker, under one prefix, for a test file or a benchmark. */
export interface PrivateTopics extends PrefixedKafka {
  /** KAFKA_TOPIC_PREFIX for the services started on these topics, and the durability settings of the local Kafka. */
  readonly env: { KAFKA_TOPIC_PREFIX: string; KAFKA_REPLICATION_FACTOR: string; KAFKA_MIN_INSYNC_REPLICAS: string };
  /** Kafka settings of a client (a KafkaEventBus) on these topics. */
  kafka(clientId: string): KafkaConfig;
  /** Deletes every topic and consumer group under the prefix; call after every client on them stopped. */
  remove(): Promise<void>;
}

async function withAdmin<T>(brokers: readonly string[], work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = testKafkaClient(`lx-topics-${uniqueSuffix()}`, { brokers, ...testKafkaLogin() }).admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

/**
 * A new prefix with every declared topic created under it, each partition with a leader before it returns: a
 * consumer that subscribes before any service started would otherwise race topic creation ("does not host this
 * topic-partition"), and the broker creates no topic on its own.
 */
export async function createPrivateTopics(
  brokers: readonly string[],
  label: 'lxit' | 'lxbench',
): Promise<PrivateTopics> {
  const topicPrefix = `${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const topics = ALL_TOPICS.map((topic) => ({ ...topic, name: prefixedName(topicPrefix, topic.name) }));
  const durability = testDurability();
  const login = testKafkaLogin();
  await withAdmin(brokers, async (admin) => {
    // Not kafkajs' waitForLeaders: its wait retries only LEADER_NOT_AVAILABLE, while a broker may still answer
    // UNKNOWN_TOPIC_OR_PARTITION ("does not host this topic-partition") for a topic it has just created (seen in CI).
    await admin.createTopics({
      waitForLeaders: false,
      topics: topics.map((topic) => topicCreationOf(topic, durability)),
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const metadata = await admin
        .fetchTopicMetadata({ topics: topics.map((topic) => topic.name) })
        .catch((error: { retriable?: boolean }) => {
          if (error.retriable === true) return undefined;
          throw error;
        });
      const led = metadata?.topics.every((topic) => topic.partitions.every((partition) => partition.leader >= 0));
      if (led === true) break;
      if (Date.now() > deadline)
        throw new Error(`the topics under ${topicPrefix} have no partition leaders after 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  return {
    brokers: [...brokers],
    topicPrefix,
    ...login,
    env: {
      KAFKA_TOPIC_PREFIX: topicPrefix,
      KAFKA_REPLICATION_FACTOR: String(durability.replicationFactor),
      KAFKA_MIN_INSYNC_REPLICAS: String(durability.minInsyncReplicas),
    },
    kafka: (clientId) => ({ brokers: [...brokers], clientId, topicPrefix, ...durability, ...login }),
    remove: () => withAdmin(brokers, (admin) => deleteUnder(admin, [topicPrefix])),
  };
}

/** The prefix (of a test file or a benchmark) a topic or group name is under, if any. */
function prefixOf(name: string): { prefix: string; createdAt: number } | undefined {
  const match = PREFIX_PATTERN.exec(name.split('.', 1)[0]!);
  return match ? { prefix: match[0], createdAt: parseInt(match[2]!, 36) } : undefined;
}

/**
 * Deletes what test files and benchmarks killed before their clean-up left on the broker: the topics and consumer
 * groups of prefixes created more than `olderThanMs` ago. Younger prefixes may belong to a run in progress.
 */
export async function deleteAbandonedTopics(brokers: readonly string[], olderThanMs: number): Promise<void> {
  await withAdmin(brokers, async (admin) => {
    const prefixes = new Set<string>();
    for (const name of await admin.listTopics()) {
      const of = prefixOf(name);
      if (of && of.createdAt < Date.now() - olderThanMs) prefixes.add(of.prefix);
    }
    await deleteUnder(admin, [...prefixes]);
  });
}

/**
 * Deletes the consumer groups left under prefixes whose topics are gone (their test file or benchmark has finished).
 * A finished file deletes its groups with its topics, but not a group whose member was killed (a SIGKILLed child
 * process): the broker keeps such a member until its session timeout (10 s for the projections, 30 s for the
 * webhook intake). Waits up to `waitMs` for those groups to empty.
 */
export async function deleteOrphanedGroups(brokers: readonly string[], waitMs: number): Promise<void> {
  await withAdmin(brokers, async (admin) => {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const live = new Set((await admin.listTopics()).map((name) => prefixOf(name)?.prefix));
      const { groups } = await admin.listGroups();
      const orphans = groups
        .map((group) => group.groupId)
        .filter((groupId) => {
          const of = prefixOf(groupId);
          return of !== undefined && !live.has(of.prefix);
        });
      if (orphans.length === 0) return;
      // Deletes the empty ones; a group that still has a member is refused until the broker drops the member.
      const refused = await admin.deleteGroups(orphans).then(
        () => false,
        () => true,
      );
      if (!refused || Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  });
}

async function deleteUnder(admin: Admin, prefixes: readonly string[]): Promise<void> {
  if (prefixes.length === 0) return;
  const under = (name: string) => prefixes.some((prefix) => name.startsWith(`${prefix}.`));
  const { groups } = await admin.listGroups();
  const groupIds = groups.map((group) => group.groupId).filter(under);
  // A group that still has a member (a killed process's, until its session times out) cannot be deleted yet:
  // deleteOrphanedGroups, after the run, takes it.
  if (groupIds.length > 0) await admin.deleteGroups(groupIds).catch(() => undefined);
  const topics = (await admin.listTopics()).filter(under);
  if (topics.length > 0) await admin.deleteTopics({ topics });
}

/** The Kafka settings of a service configuration, which the tests run with EVENT_BUS=kafka (the default). */
export function kafkaOf(eventBus: EventBusConfig): KafkaConfig {
  if (eventBus.driver !== 'kafka') throw new Error(`the test runs on Kafka, not on EVENT_BUS=${eventBus.driver}`);
  return eventBus.kafka;
}
