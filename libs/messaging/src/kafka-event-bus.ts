import { Logger } from '@nestjs/common';
import {
  type Admin,
  type Consumer,
  type IHeaders,
  Kafka,
  logLevel,
  type LogEntry,
  Partitioners,
  type Producer,
} from 'kafkajs';
import type { TopicSpec } from '@lx/contracts';
import type { KafkaConfig } from '@lx/platform';
import { EventBus, type OutgoingMessage, type Subscription } from './event-bus';

function headersOf(headers: IHeaders | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    result[name] = (Array.isArray(value) ? value[0] : value)?.toString() ?? '';
  }
  return result;
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
 * duplicate nor reorder messages of one partition (and so of one key).
 */
export class KafkaEventBus extends EventBus {
  private readonly logger = new Logger(KafkaEventBus.name);
  private readonly kafka: Kafka;
  private readonly admin: Admin;
  private readonly producer: Producer;
  private readonly consumers: Consumer[] = [];
  private connected?: Promise<void>;

  constructor(private readonly config: Readonly<KafkaConfig>) {
    super();
    this.kafka = new Kafka({
      clientId: config.clientId,
      brokers: [...config.brokers],
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

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.connect();
    await this.producer.send({
      topic,
      messages: messages.map((message) => ({ key: message.key, value: message.value, headers: message.headers })),
    });
  }

  async subscribe(subscription: Subscription): Promise<void> {
    const consumer = this.kafka.consumer({ groupId: subscription.groupId });
    this.consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [...subscription.topics], fromBeginning: subscription.fromBeginning });
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) =>
        subscription.handle({
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value: message.value,
          headers: headersOf(message.headers),
        }),
    });
  }

  async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    await this.connect();
    const existing = new Set(await this.admin.listTopics());
    const missing = topics.filter((topic) => !existing.has(topic.name));
    if (missing.length === 0) return;
    await this.admin.createTopics({
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
    this.logger.log({ topics: missing.map((topic) => topic.name) }, 'Created topics');
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
}
