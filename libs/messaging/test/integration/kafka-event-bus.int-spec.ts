import { ConfigResourceTypes } from 'kafkajs';
import { ALL_TOPICS, KAFKA_HEADERS, type TopicSpec, TOPICS } from '@lx/contracts';
import { KafkaEventBus, type IncomingBatch, type IncomingMessage, TopicDurabilityError } from '../../src';
import { testKafka, testKafkaClient, testTopic, uniqueSuffix, waitFor } from '@lx/testing';

/**
 * Canary for the kafkajs 2.2.4 ↔ Kafka 4.x pairing: topic creation with configs, idempotent
 * produce, consumer-group consume. A protocol break between the two shows up here first.
 */
describe('KafkaEventBus against the real broker', () => {
  const kafka = testKafka();
  const suffix = uniqueSuffix();
  const topic: TopicSpec = {
    name: `it.kafka-event-bus.${suffix}`,
    partitions: 3,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'integration test topic',
  };
  const bus = new KafkaEventBus(kafka);

  afterAll(() => bus.close());

  it('creates a declared topic once under the topic prefix, with its partitions, retention, cleanup policy and durability', async () => {
    await bus.ensureTopics([topic]);
    await bus.ensureTopics([topic]);

    const admin = testKafkaClient(`it-admin-${suffix}`).admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).not.toContain(topic.name);
      const [metadata] = (await admin.fetchTopicMetadata({ topics: [testTopic(topic.name)] })).topics;
      expect(metadata?.partitions).toHaveLength(3);
      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: testTopic(topic.name),
            configNames: ['retention.ms', 'cleanup.policy', 'min.insync.replicas'],
          },
        ],
      });
      const entries = Object.fromEntries(
        (described.resources[0]?.configEntries ?? []).map((entry) => [entry.configName, entry.configValue]),
      );
      expect(entries).toEqual({ 'retention.ms': '-1', 'cleanup.policy': 'delete', 'min.insync.replicas': '1' });
      // Set on the topic itself, not the broker's default that happens to be the same.
      const minInsync = described.resources[0]?.configEntries.find(
        ({ configName }) => configName === 'min.insync.replicas',
      );
      expect(minInsync?.isDefault).toBe(false);
      expect(metadata?.partitions.map((partition) => partition.replicas.length)).toEqual([1, 1, 1]);
    } finally {
      await admin.disconnect();
    }
  });

  it('delivers every keyed message to a consumer group, in order per key, with headers', async () => {
    const keys = ['loc-a', 'loc-b', 'loc-c', 'loc-d', 'loc-e'];
    const perKey = 40;
    for (let batch = 0; batch < 4; batch += 1) {
      await bus.publish(
        topic.name,
        keys.flatMap((key) =>
          Array.from({ length: perKey / 4 }, (_, i) => ({
            key,
            value: JSON.stringify({ key, seq: batch * (perKey / 4) + i }),
            headers: { 'x-test': suffix },
          })),
        ),
      );
    }

    const received: IncomingMessage[] = [];
    await bus.subscribe({
      groupId: `it-group-${suffix}`,
      topics: [topic.name],
      fromBeginning: true,
      handle: async (message) => {
        received.push(message);
      },
    });
    await waitFor('all messages consumed', async () => received.length >= keys.length * perKey, 60_000);

    expect(received).toHaveLength(keys.length * perKey);
    for (const key of keys) {
      const sequence = received.filter((m) => m.key === key).map((m) => JSON.parse(m.value!.toString()).seq);
      expect(sequence).toEqual(Array.from({ length: perKey }, (_, i) => i));
      const partitions = new Set(received.filter((m) => m.key === key).map((m) => m.partition));
      expect(partitions.size).toBe(1);
    }
    expect(received.every((m) => m.headers['x-test'] === suffix)).toBe(true);
  });

  it('answers ping while the broker is up', async () => {
    await expect(bus.ping()).resolves.toBeUndefined();
  });
});

/**
 * Two deployments on one broker, each with its own topic prefix (both under the test file's, so the file's clean-up
 * removes them): the same declared topics and the same consumer group id, and neither sees the other's events.
 */
describe('KafkaEventBus: two topic prefixes on one broker', () => {
  const kafka = testKafka();
  const { topicPrefix } = kafka;
  const deployments = ['blue', 'green'].map((name) => ({
    name,
    topicPrefix: `${topicPrefix}.${name}`,
    bus: new KafkaEventBus({ ...kafka, clientId: `it-${name}`, topicPrefix: `${topicPrefix}.${name}` }),
    batches: [] as IncomingBatch[],
  }));
  const admin = testKafkaClient().admin();

  beforeAll(async () => {
    await admin.connect();
    for (const { bus } of deployments) await bus.ensureTopics(ALL_TOPICS);
  });

  afterAll(async () => {
    await Promise.all(deployments.map(({ bus }) => bus.close()));
    await admin.disconnect();
  });

  it('keeps each deployment to its own topics and consumer group, and hands handlers the declared names', async () => {
    const groupId = 'location-query';
    for (const deployment of deployments) {
      const joined = new Promise<void>((resolve) => {
        void deployment.bus.subscribeBatches({
          groupId,
          topics: [TOPICS.locationEvents.name],
          fromBeginning: true,
          handleBatch: (batch, control) => {
            deployment.batches.push(batch);
            control.markConsumed(batch.messages[batch.messages.length - 1]!.offset);
            return Promise.resolve();
          },
          onEvent: (event) => {
            if (event.type === 'joined') resolve();
          },
        });
      });
      await joined;
    }
    // One key, so on a shared topic every message would sit in one partition in publishing order: a consumer that
    // has its own marker would have had every message published before it.
    const publish = (deployment: (typeof deployments)[number], what: string) =>
      deployment.bus.publish(TOPICS.locationEvents.name, [
        { key: 'location-1', value: `${deployment.name} ${what}`, headers: { [KAFKA_HEADERS.aggregateVersion]: '1' } },
      ]);
    for (const deployment of deployments) await publish(deployment, 'event');
    for (const deployment of deployments) await publish(deployment, 'marker');

    const received = (deployment: (typeof deployments)[number]) =>
      deployment.batches.flatMap((batch) => batch.messages.map((message) => message.value!.toString()));
    await waitFor('each deployment to receive its marker', () =>
      Promise.resolve(deployments.every((deployment) => received(deployment).includes(`${deployment.name} marker`))),
    );
    for (const deployment of deployments) {
      expect(received(deployment)).toEqual([`${deployment.name} event`, `${deployment.name} marker`]);
      expect(new Set(deployment.batches.map((batch) => batch.topic))).toEqual(new Set([TOPICS.locationEvents.name]));
    }

    const topics = await admin.listTopics();
    const groups = (await admin.listGroups()).groups.map((group) => group.groupId);
    for (const deployment of deployments) {
      expect(topics).toContain(`${deployment.topicPrefix}.location.events.v1`);
      expect(groups).toContain(`${deployment.topicPrefix}.location-query`);
    }
  });
});

/**
 * The durability settings on the local single broker (KAFKA_REPLICATION_FACTOR and KAFKA_MIN_INSYNC_REPLICAS 1): a
 * bus that asks for more than the cluster or an existing topic has refuses to start, naming what is wrong.
 */
describe('KafkaEventBus: replication factor and min.insync.replicas', () => {
  const kafka = testKafka();
  const suffix = uniqueSuffix();
  const topicNamed = (name: string): TopicSpec => ({
    name: `it.durability.${name}.${suffix}`,
    partitions: 1,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'integration test topic',
  });
  const admin = testKafkaClient(undefined, kafka).admin();
  const buses: KafkaEventBus[] = [];
  const busWith = (durability: { replicationFactor: number; minInsyncReplicas: number }) => {
    const bus = new KafkaEventBus({ ...kafka, clientId: `it-durability-${buses.length}`, ...durability });
    buses.push(bus);
    return bus;
  };

  beforeAll(() => admin.connect());
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await admin.disconnect();
  });

  it('given a replication factor above the brokers of the cluster, then creating a topic fails naming both', async () => {
    const topic = topicNamed('two-replicas');

    const failure = busWith({ replicationFactor: 2, minInsyncReplicas: 1 }).ensureTopics([topic]);

    await expect(failure).rejects.toThrow(TopicDurabilityError);
    await expect(failure).rejects.toThrow(
      /the Kafka cluster has 1 broker up, fewer than KAFKA_REPLICATION_FACTOR \(2\), so a topic cannot get 2 replicas/,
    );
    expect(await admin.listTopics()).not.toContain(testTopic(topic.name));
  });

  it('given an existing topic with a lower min.insync.replicas than configured, then the start fails naming the topic and the fix', async () => {
    const topic = topicNamed('one-in-sync');
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic: testTopic(topic.name),
          numPartitions: 1,
          replicationFactor: 1,
          configEntries: [{ name: 'min.insync.replicas', value: '1' }],
        },
      ],
    });

    // More in sync than replicas, which the configuration refuses: on one broker, the only way to ask for more.
    const failure = busWith({ replicationFactor: 1, minInsyncReplicas: 2 }).ensureTopics([topic]);

    await expect(failure).rejects.toThrow(TopicDurabilityError);
    await expect(failure).rejects.toThrow(
      `topic ${testTopic(topic.name)} has min.insync.replicas=1, KAFKA_MIN_INSYNC_REPLICAS is 2: kafka-configs.sh ` +
        `--alter --entity-type topics --entity-name ${testTopic(topic.name)} --add-config min.insync.replicas=2`,
    );
  });

  it('given an existing topic with fewer replicas than configured, then the start fails naming the topic', async () => {
    const topic = topicNamed('one-replica');
    await busWith({ replicationFactor: 1, minInsyncReplicas: 1 }).ensureTopics([topic]);

    const failure = busWith({ replicationFactor: 2, minInsyncReplicas: 1 }).ensureTopics([topic]);

    await expect(failure).rejects.toThrow(
      `topic ${testTopic(topic.name)} has 1 replica, KAFKA_REPLICATION_FACTOR is 2: add replicas with kafka-reassign-partitions.sh`,
    );
  });

  it('given existing topics as durable as configured, then ensureTopics passes without creating anything', async () => {
    const topic = topicNamed('as-configured');
    await busWith({ replicationFactor: 1, minInsyncReplicas: 1 }).ensureTopics([topic]);

    await expect(
      busWith({ replicationFactor: 1, minInsyncReplicas: 1 }).ensureTopics([topic]),
    ).resolves.toBeUndefined();
  });
});
