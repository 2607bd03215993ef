import { Kafka, logLevel, ConfigResourceTypes } from 'kafkajs';
import type { TopicSpec } from '@lx/contracts';
import { KafkaEventBus, type IncomingMessage } from '../../src';
import { requireEnv, uniqueSuffix, waitFor } from '@lx/testing';

/**
 * Canary for the kafkajs 2.2.4 ↔ Kafka 4.x pairing: topic creation with configs, idempotent
 * produce, consumer-group consume. A protocol break between the two shows up here first.
 */
describe('KafkaEventBus against the real broker', () => {
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const suffix = uniqueSuffix();
  const topic: TopicSpec = {
    name: `it.kafka-event-bus.${suffix}`,
    partitions: 3,
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'integration test topic',
  };
  const bus = new KafkaEventBus({ brokers, clientId: `it-${suffix}` });

  afterAll(() => bus.close());

  it('creates a declared topic once, with its partitions, retention and cleanup policy', async () => {
    await bus.ensureTopics([topic]);
    await bus.ensureTopics([topic]);

    const admin = new Kafka({ brokers, clientId: `it-admin-${suffix}`, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic.name] })).topics;
      expect(metadata?.partitions).toHaveLength(3);
      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: topic.name, configNames: ['retention.ms', 'cleanup.policy'] },
        ],
      });
      const entries = Object.fromEntries(
        (described.resources[0]?.configEntries ?? []).map((entry) => [entry.configName, entry.configValue]),
      );
      expect(entries).toEqual({ 'retention.ms': '-1', 'cleanup.policy': 'delete' });
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
