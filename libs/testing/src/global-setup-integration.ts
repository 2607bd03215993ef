// Runs once before the integration test files. On a fresh broker the services' topics do not exist
// until some service starts, so test consumers subscribing first would race topic creation
// ("does not host this topic-partition"). Create them here, and wait until every partition has a
// leader. Relative imports: jest resolves globalSetup without the path aliases.
import { Kafka, logLevel } from 'kafkajs';
// eslint-disable-next-line @nx/enforce-module-boundaries, lx/no-relative-import-outside-project -- globalSetup runs outside jest's moduleNameMapper
import { ALL_TOPICS } from '../../contracts/src/events/topics';
import { loadInfraEnv } from './infra-env';

export default async function globalSetup(): Promise<void> {
  loadInfraEnv();
  const brokers = process.env.KAFKA_BROKERS?.split(',');
  if (!brokers) throw new Error('KAFKA_BROKERS is not set: run "npm run infra:up" before integration tests');
  const admin = new Kafka({ clientId: 'integration-setup', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = ALL_TOPICS.filter((topic) => !existing.has(topic.name));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({
          topic: topic.name,
          numPartitions: topic.partitions,
          configEntries: [
            { name: 'retention.ms', value: String(topic.retentionMs) },
            { name: 'cleanup.policy', value: topic.cleanupPolicy },
          ],
        })),
      });
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { topics } = await admin.fetchTopicMetadata({ topics: ALL_TOPICS.map((topic) => topic.name) });
      const ready = topics.every((topic) => topic.partitions.every((partition) => partition.leader >= 0));
      if (ready) break;
      if (Date.now() > deadline) throw new Error('Kafka topics have no partition leaders after 30 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await admin.disconnect();
  }
}
