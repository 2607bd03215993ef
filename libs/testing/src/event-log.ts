import type { Consumer } from 'kafkajs';
import { type EventType, KAFKA_HEADERS, prefixedName } from '@lx/contracts';
import { uniqueSuffix } from './infra-env';
import { type PrefixedKafka, testKafkaClient } from './kafka-topics';
import type { Json } from './replies';
import { waitFor } from './wait-for';

/** One message as a consumer saw it. */
export interface ReceivedMessage {
  /** As declared (without the topic prefix). */
  topic: string;
  partition: number;
  offset: string;
  key: string;
  event: { id: string; type: EventType; timestamp: string; source: string; data: Json; modifiedFields?: Json };
  version: number;
  headers: Record<string, string>;
}

/** A message whose value is not a JSON object: where it was, and its key. */
export interface UnreadableMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string;
}

/** The value as an event envelope, or undefined when it is not a JSON object. */
function parseEvent(value: Buffer | null): ReceivedMessage['event'] | undefined {
  try {
    const parsed: unknown = JSON.parse(value?.toString() ?? '');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as ReceivedMessage['event'])
      : undefined;
  } catch {
    return undefined;
  }
}

/** A consumer of the given topics (declared names) that sees only what is published after it started. */
export interface EventLog {
  readonly received: ReceivedMessage[];
  /** Messages that were not JSON objects (other tests' malformed messages, or a bug: check the keys). */
  readonly unreadable: UnreadableMessage[];
  /** Messages whose key is one of `keys`, in arrival order. */
  of(...keys: string[]): ReceivedMessage[];
  /** Waits until at least `count` messages with one of `keys` arrived. */
  waitFor(count: number, keys: readonly string[], timeoutMs?: number): Promise<ReceivedMessage[]>;
  close(): Promise<void>;
}

/**
 * Starts a consumer group of its own, under the topic prefix of `kafka`, positioned at the current end of each
 * partition, so the test reads only its own era of the topics (other tests of the file publish there too; filter by
 * your aggregate ids).
 */
export async function startEventLog(kafka: PrefixedKafka, topics: readonly string[]): Promise<EventLog> {
  const onCluster = (name: string) => prefixedName(kafka.topicPrefix, name);
  const declared = new Map(topics.map((topic) => [onCluster(topic), topic]));
  const client = testKafkaClient(`it-log-${uniqueSuffix()}`, kafka);
  const admin = client.admin();
  await admin.connect();
  const ends = await Promise.all(
    [...declared.keys()].map(async (topic) => ({ topic, offsets: await admin.fetchTopicOffsets(topic) })),
  );
  await admin.disconnect();

  const received: ReceivedMessage[] = [];
  const unreadable: UnreadableMessage[] = [];
  const consumer: Consumer = client.consumer({
    groupId: onCluster(`it-log-${uniqueSuffix()}`),
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [...declared.keys()], fromBeginning: false });
  // Positioned once the group is joined, not right after run(): on a Kafka that has never had a consumer group the
  // coordinator is not there yet (__consumer_offsets is being created), the first join fails, kafkajs restarts the
  // consumer, and a seek before that restart joined throws "Consumer group was not initialized".
  let positioned = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    if (positioned) return;
    for (const { topic, offsets } of ends) {
      for (const { partition, high } of offsets) consumer.seek({ topic, partition, offset: high });
    }
    positioned = true;
  });
  await consumer.run({
    // Never throws: the topics are shared with tests that publish malformed messages on purpose (the dead-letter
    // tests), and a throwing handler makes kafkajs retry that batch and restart the consumer from its committed
    // offset again and again, so everything after the foreign message would stop arriving.

    eachMessage: async ({ topic: topicOnCluster, partition, message }) => {
      const topic = declared.get(topicOnCluster) ?? topicOnCluster;
      const headers = Object.fromEntries(
        Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
      );
      const key = message.key?.toString() ?? '';
      const event = parseEvent(message.value);
      if (event === undefined) {
        unreadable.push({ topic, partition, offset: message.offset, key });
        return;
      }
      received.push({
        topic,
        partition,
        offset: message.offset,
        key,
        event,
        version: Number(headers[KAFKA_HEADERS.aggregateVersion]),
        headers,
      });
    },
  });
  await waitFor('the test consumer joined its group', () => Promise.resolve(positioned), 90_000);

  const of = (...keys: string[]) => received.filter((message) => keys.includes(message.key));
  return {
    received,
    unreadable,
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
