import { ServerKafka } from '@nestjs/microservices';
import { type Consumer, Partitioners } from 'kafkajs';
import { TOPICS } from '@lx/contracts';
import { KafkaNames } from '@lx/messaging';
import type { ReadinessCheck } from '@lx/platform';

export interface WebhookIntakeOptions {
  brokers: string[];
  clientId: string;
  groupId: string;
  /** The deployment's KAFKA_TOPIC_PREFIX: on the cluster, the topics and the group carry it. */
  topicPrefix: string;
  /** Partitions handled at the same time. */
  concurrency: number;
}

/** Messages of one partition handed to the handlers at the same time. */
const HANDLED_AT_ONCE = 500;

/**
 * The intake's transport and readiness check: WebhookIntakeServer (Kafka), or EventLogIntakeServer in the embedded
 * profile.
 */
export const WEBHOOK_INTAKE = Symbol('WEBHOOK_INTAKE');

/** The topics the intake consumes. */
export const INTAKE_TOPICS = [TOPICS.locationEvents.name, TOPICS.exportEvents.name] as const;

/**
 * The @nestjs/microservices Kafka transport of the intake (the event handlers of WebhookEventsController), with four
 * changes. A consumer group that has never committed starts at the end of each partition as it stood when this
 * server first started, fixed before the consumer joins: no history is sent to RSPs, and nothing published after
 * start-up is missed (Kafka's own "latest" would be resolved only at the first fetch). A fetched batch goes to the
 * handlers at once (see bindEvents). It reports whether its consumer has joined the group and not crashed, for
 * /health/ready. And on the cluster its topics and group carry the deployment's topic prefix, while the handlers see
 * the declared topic names they are bound to (as with KafkaEventBus).
 */
export class WebhookIntakeServer extends ServerKafka implements ReadinessCheck {
  readonly name = 'webhook-intake';
  private state: 'starting' | 'joined' | 'crashed' | 'stopped' = 'starting';
  private crash?: string;
  private readonly names: KafkaNames;

  constructor(private readonly intake: WebhookIntakeOptions) {
    const names = new KafkaNames(intake.topicPrefix);
    super({
      client: { clientId: intake.clientId, brokers: intake.brokers },
      // ServerKafka keeps the group on the cluster as this.groupId.
      consumer: { groupId: names.onCluster(intake.groupId), allowAutoTopicCreation: false },
      // The group and client ids are used as configured, without ServerKafka's "-server" suffix.
      postfixId: '',
      producer: { createPartitioner: Partitioners.DefaultPartitioner },
    });
    this.names = names;
  }

  /**
   * Like ServerKafka's, except that a fetched batch of one partition is handed to the handlers all at once (kafkajs
   * eachBatch) instead of one message at a time: the handlers record events in bulk (RecordEventHandler), so the
   * intake is not bound to one database round trip per message. The batch's offsets are resolved after every
   * handler of it succeeded; when one fails, the batch is fetched again and the handlers, idempotent, repeat it.
   */
  override async bindEvents(consumer: Consumer): Promise<void> {
    await this.startAtEndIfNew();
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.state = 'joined';
    });
    consumer.on(consumer.events.CRASH, (event) => {
      this.state = 'crashed';
      this.crash = event.payload.error.message;
    });
    consumer.on(consumer.events.STOP, () => {
      this.state = 'stopped';
    });
    const topics = [...this.messageHandlers.keys()].map((topic) => this.names.onCluster(topic));
    await consumer.subscribe({ topics, fromBeginning: false });
    await consumer.run({
      partitionsConsumedConcurrently: this.intake.concurrency,
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        const { partition, messages } = payload.batch;
        const topic = this.names.declared(payload.batch.topic);
        const heartbeat = () => payload.heartbeat();
        const pause = () => payload.pause();
        for (let start = 0; start < messages.length; start += HANDLED_AT_ONCE) {
          if (!payload.isRunning() || payload.isStale()) return;
          const chunk = messages.slice(start, start + HANDLED_AT_ONCE);
          await Promise.all(
            chunk.map((message) => this.handleMessage({ topic, partition, message, heartbeat, pause })),
          );
          payload.resolveOffset(chunk[chunk.length - 1]!.offset);
          await payload.heartbeat();
        }
      },
    });
  }

  check(): Promise<void> {
    if (this.state === 'joined') return Promise.resolve();
    return Promise.reject(new Error(`the event intake is ${this.state}${this.crash ? `: ${this.crash}` : ''}`));
  }

  private async startAtEndIfNew(): Promise<void> {
    const admin = this.client!.admin();
    await admin.connect();
    try {
      for (const topic of INTAKE_TOPICS.map((declared) => this.names.onCluster(declared))) {
        const [committed] = await admin.fetchOffsets({ groupId: this.groupId, topics: [topic] });
        const unset = (committed?.partitions ?? []).filter(({ offset }) => offset === '-1');
        if (unset.length === 0) continue;
        const ends = new Map((await admin.fetchTopicOffsets(topic)).map(({ partition, high }) => [partition, high]));
        await admin.setOffsets({
          groupId: this.groupId,
          topic,
          partitions: unset.map(({ partition }) => ({ partition, offset: ends.get(partition) ?? '0' })),
        });
        this.logger.log(`New consumer group ${this.groupId}: ${topic} starts at its current end`);
      }
    } finally {
      await admin.disconnect();
    }
  }
}
