import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { type EventType, KAFKA_HEADERS } from '@lx/contracts';
import { uniqueSuffix, waitFor } from '@lx/testing';
import type { Json } from './location-command-harness';

/** One message as a consumer saw it. */
export interface ReceivedMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  event: { id: string; type: EventType; timestamp: string; source: string; data: Json; modifiedFields?: Json };
  version: number;
  headers: Record<string, string>;
}

/** A consumer of the given topics that sees only what is published after it started. */
export interface EventLog {
  readonly received: ReceivedMessage[];
  /** Messages whose key is one of `keys`, in arrival order. */
  of(...keys: string[]): ReceivedMessage[];
  /** Waits until at least `count` messages with one of `keys` arrived. */
  waitFor(count: number, keys: readonly string[], timeoutMs?: number): Promise<ReceivedMessage[]>;
  close(): Promise<void>;
}

/**
 * Starts a consumer group of its own positioned at the current end of each partition, so the test reads only its
 * own era of the shared topics (other tests publish there too; filter by your aggregate ids).
 */
export async function startEventLog(brokers: readonly string[], topics: readonly string[]): Promise<EventLog> {
  const kafka = new Kafka({ brokers: [...brokers], clientId: `it-log-${uniqueSuffix()}`, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const ends = await Promise.all(
    topics.map(async (topic) => ({ topic, offsets: await admin.fetchTopicOffsets(topic) })),
  );
  await admin.disconnect();

  const received: ReceivedMessage[] = [];
  const consumer: Consumer = kafka.consumer({ groupId: `it-log-${uniqueSuffix()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: [...topics], fromBeginning: false });
  let assigned = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    assigned = true;
  });
  await consumer.run({
    // eslint-disable-next-line @typescript-eslint/require-await -- kafkajs wants a promise; recording is synchronous
    eachMessage: async ({ topic, partition, message }) => {
      const headers = Object.fromEntries(
        Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
      );
      received.push({
        topic,
        partition,
        offset: message.offset,
        key: message.key?.toString() ?? '',
        event: JSON.parse(message.value?.toString() ?? 'null') as ReceivedMessage['event'],
        version: Number(headers[KAFKA_HEADERS.aggregateVersion]),
        headers,
      });
    },
  });
  for (const { topic, offsets } of ends) {
    for (const { partition, high } of offsets) consumer.seek({ topic, partition, offset: high });
  }
  await waitFor('the test consumer joined its group', () => Promise.resolve(assigned), 90_000);

  const of = (...keys: string[]) => received.filter((message) => keys.includes(message.key));
  return {
    received,
    of,
    async waitFor(count, keys, timeoutMs = 90_000) {
      await waitFor(
        `${count} messages for ${keys.length} key(s)`,
        () => Promise.resolve(of(...keys).length >= count),
        timeoutMs,
      );
      return of(...keys);
    },
    close: () => consumer.disconnect(),
  };
}
