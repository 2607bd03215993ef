import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { TOPICS } from '@lx/contracts';
import { requireEnv, uniqueSuffix, waitFor } from '@lx/testing';

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
}

/** Reads client.events.v1 from the beginning with a group of its own and keeps every message. */
export class ClientEventsReader {
  readonly messages: ReceivedMessage[] = [];
  private readonly consumer: Consumer;

  constructor() {
    const kafka = new Kafka({
      brokers: requireEnv('KAFKA_BROKERS').split(','),
      clientId: `it-auth-${uniqueSuffix()}`,
      logLevel: logLevel.NOTHING,
    });
    this.consumer = kafka.consumer({ groupId: `it-auth-client-events-${uniqueSuffix()}` });
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [TOPICS.clientEvents.name], fromBeginning: true });
    await this.consumer.run({
      eachMessage: ({ message }) => {
        this.messages.push({ key: message.key?.toString() ?? null, value: message.value?.toString() ?? '' });
        return Promise.resolve();
      },
    });
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
}
