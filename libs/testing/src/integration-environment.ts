// The jest environment of the integration tests (jest.integration.config.js). Runs outside jest's moduleNameMapper:
// relative imports only.
import { TestEnvironment } from 'jest-environment-node';
import { loadInfraEnv, requireEnv } from './infra-env';
import { createPrivateTopics, type PrivateTopics } from './kafka-topics';

/**
 * Node's environment, with Kafka topics of the test file's own: before the file runs, every declared topic is created
 * under a new prefix and KAFKA_TOPIC_PREFIX names it in the file's environment, so each service, harness and client
 * the file starts uses them; after its last hook, every topic and consumer group under the prefix is deleted. Files
 * running in parallel on one broker, and a local stack on it, never see each other's events.
 */
export default class IntegrationEnvironment extends TestEnvironment {
  private topics?: PrivateTopics;

  constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
    super(...args);
    loadInfraEnv();
  }

  override async setup(): Promise<void> {
    await super.setup();
    this.topics = await createPrivateTopics(requireEnv('KAFKA_BROKERS').split(','), 'lxit');
    Object.assign(this.global.process.env, this.topics.env);
  }

  override async teardown(): Promise<void> {
    try {
      await this.topics?.remove();
    } finally {
      await super.teardown();
    }
  }
}
