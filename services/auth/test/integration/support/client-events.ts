import type { Consumer, Kafka } from 'kafkajs';
import { TOPICS } from '@lx/contracts';
import { testKafkaClient, testTopic, uniqueSuffix, waitFor } from '@lx/testing';

export interface ClientEvent {
  id: string;
  type: string;
  timestamp: string;
  source: string;
  data: Record<string, unknown>;
}

export interface ReceivedMessage {
  key: string | null;
  value: string;
  /** Header values as text (the producer writes strings). */
  headers: Record<string, string>;
  /** The bytes as they were on the topic. */
  raw: { key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer> };
}

export interface ClientEventsReaderOptions {
  /** `beginning` (default): everything the topic keeps; `end`: only what is published after start() resolved. */
  from?: 'beginning' | 'end';
}

/**
 * Reads client.events.v1 (under the test file's topic prefix) with a group of its own and keeps every message, as
 * text and as raw bytes.
 */
export class ClientEventsReader {
  readonly messages: ReceivedMessage[] = [];
  private readonly kafka: Kafka;
  private readonly consumer: Consumer;

  constructor(private readonly options: ClientEventsReaderOptions = {}) {
    this.kafka = testKafkaClient(`it-auth-${uniqueSuffix()}`);
    this.consumer = this.kafka.consumer({
      groupId: testTopic(`it-auth-client-events-${uniqueSuffix()}`),
      maxWaitTimeInMs: 100,
    });
  }

  async start(): Promise<void> {
    const topic = testTopic(TOPICS.clientEvents.name);
    // The log end before anything of the test happens: reading from there sees exactly the test's era.
    const ends = this.options.from === 'end' ? await this.logEnd(topic) : [];
    let joined = false;
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => {
      joined = true;
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [topic], fromBeginning: this.options.from !== 'end' });
    await this.consumer.run({
      eachMessage: ({ message }) => {
        const headers: Record<string, Buffer> = {};
        for (const [name, value] of Object.entries(message.headers ?? {})) {
          if (value === undefined) continue;
          headers[name] = Buffer.isBuffer(value) ? value : Buffer.from(String(value));
        }
        this.messages.push({
          key: message.key?.toString() ?? null,
          value: message.value?.toString() ?? '',
          headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.toString()])),
          raw: { key: message.key, value: message.value, headers },
        });
        return Promise.resolve();
      },
    });
    for (const { partition, high } of ends) this.consumer.seek({ topic, partition, offset: high });
    await waitFor('the client events reader joined its group', () => Promise.resolve(joined), 90_000);
  }

  /** The raw messages keyed by `clientId`, in the order they were published. */
  messagesOf(clientId: string): ReceivedMessage[] {
    return this.messages.filter((message) => message.key === clientId);
  }

  /** The parsed events keyed by `clientId`, in the order they were published. */
  eventsOf(clientId: string): ClientEvent[] {
    return this.messagesOf(clientId).map((message) => JSON.parse(message.value) as ClientEvent);
  }

  async waitForEvents(clientId: string, count: number): Promise<ClientEvent[]> {
    await waitFor(
      `${count} client events of ${clientId}`,
      () => Promise.resolve(this.eventsOf(clientId).length >= count),
      90_000,
    );
    return this.eventsOf(clientId);
  }

  stop(): Promise<void> {
    return this.consumer.disconnect();
  }

  private async logEnd(topic: string) {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      return await admin.fetchTopicOffsets(topic);
    } finally {
      await admin.disconnect();
    }
  }
}
