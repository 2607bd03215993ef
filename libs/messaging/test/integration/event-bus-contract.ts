import type { TopicSpec } from '@lx/contracts';
import { uniqueSuffix, waitFor } from '@lx/testing';
import type {
  BatchSubscription,
  ConsumerEvent,
  ConsumerHandle,
  EventBus,
  IncomingMessage,
  OutgoingMessage,
} from '../../src';

/** How an adapter of the EventBus port is created and torn down for the contract. */
export interface EventBusUnderTest {
  bus: EventBus;
  close(): Promise<void>;
}

/** What one consumer of a test received, with its handle. */
interface Consumed {
  messages: IncomingMessage[];
  events: ConsumerEvent[];
  handle: ConsumerHandle;
  joined(): Promise<void>;
}

function keyed(key: string, from: number, count: number, tag: string): OutgoingMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    key,
    value: JSON.stringify({ key, seq: from + i }),
    headers: { 'x-tag': tag },
  }));
}

function seqOf(message: IncomingMessage): number {
  return (JSON.parse(message.value!.toString()) as { seq: number }).seq;
}

/** Sequence numbers per key, in the order they arrived. */
function sequencesByKey(messages: readonly IncomingMessage[]): Record<string, number[]> {
  const result: Record<string, number[]> = {};
  for (const message of messages) (result[message.key!] ??= []).push(seqOf(message));
  return result;
}

const range = (count: number, from = 0) => Array.from({ length: count }, (_, i) => from + i);

/**
 * The guarantees the services rely on from the event log, run against every adapter of the EventBus port (Kafka in
 * production, the PostgreSQL-backed log of the embedded profile), so an adapter cannot drift from them: order per
 * key, consumer groups with stored offsets, redelivery of what a handler did not mark, replay from the beginning,
 * positions chosen by the subscriber, and bounds that count what was published.
 */
export function describeEventBusContract(adapter: string, create: () => Promise<EventBusUnderTest>): void {
  describe(`EventBus contract: ${adapter}`, () => {
    let underTest: EventBusUnderTest;
    let bus: EventBus;
    const handles: ConsumerHandle[] = [];

    beforeAll(async () => {
      underTest = await create();
      bus = underTest.bus;
    });

    afterEach(async () => {
      await Promise.all(handles.splice(0).map((handle) => handle.stop()));
    });

    afterAll(() => underTest.close());

    async function freshTopic(partitions = 3): Promise<string> {
      const topic: TopicSpec = {
        name: `it.contract.${uniqueSuffix()}`,
        partitions,
        retentionMs: -1,
        cleanupPolicy: 'delete',
        description: 'event bus contract test topic',
      };
      await bus.ensureTopics([topic]);
      return topic.name;
    }

    /** A consumer that records every message and marks each one consumed unless `refuse` says otherwise. */
    async function consume(
      topic: string,
      groupId: string,
      options: Partial<Pick<BatchSubscription, 'fromBeginning' | 'positionsFor'>> & {
        refuse?: (message: IncomingMessage) => boolean;
        /** What a refusal throws (by default an Error). */
        refusal?: (message: IncomingMessage) => Error;
      } = {},
    ): Promise<Consumed> {
      const messages: IncomingMessage[] = [];
      const events: ConsumerEvent[] = [];
      const handle = await bus.subscribeBatches({
        groupId,
        topics: [topic],
        fromBeginning: options.fromBeginning ?? true,
        partitionsConcurrently: 3,
        positionsFor: options.positionsFor,
        onEvent: (event) => events.push(event),
        handleBatch: (batch, control) => {
          for (const message of batch.messages) {
            if (!control.isActive()) break;
            if (options.refuse?.(message)) {
              return Promise.reject(options.refusal?.(message) ?? new Error(`refused ${message.offset}`));
            }
            messages.push(message);
            control.markConsumed(message.offset);
          }
          return Promise.resolve();
        },
      });
      handles.push(handle);
      return {
        messages,
        events,
        handle,
        joined: () =>
          waitFor(`${groupId} joined`, () => Promise.resolve(events.some((event) => event.type === 'joined'))),
      };
    }

    it('creates topics idempotently and answers ping', async () => {
      const topic = await freshTopic(3);
      await bus.ensureTopics([
        { name: topic, partitions: 3, retentionMs: -1, cleanupPolicy: 'delete', description: 'again' },
      ]);
      const bounds = [...(await bus.partitionBounds(topic))].sort((a, b) => a.partition - b.partition);
      expect(bounds.map(({ partition, low, high }) => ({ partition, low, high }))).toEqual(
        range(3).map((partition) => ({ partition, low: '0', high: '0' })),
      );
      await expect(bus.ping()).resolves.toBeUndefined();
    });

    it('delivers every message in order per key, with key and headers, and bounds count what was published', async () => {
      const topic = await freshTopic(3);
      const keys = ['loc-a', 'loc-b', 'loc-c', 'loc-d', 'loc-e'];
      for (let round = 0; round < 4; round += 1) {
        await bus.publish(
          topic,
          keys.flatMap((key) => keyed(key, round * 10, 10, 'order')),
        );
      }
      const bounds = await bus.partitionBounds(topic);
      expect(bounds.reduce((sum, { low, high }) => sum + Number(high) - Number(low), 0)).toBe(200);

      const consumer = await consume(topic, `it-order-${uniqueSuffix()}`);
      await waitFor('200 messages', () => Promise.resolve(consumer.messages.length >= 200));
      expect(sequencesByKey(consumer.messages)).toEqual(Object.fromEntries(keys.map((key) => [key, range(40)])));
      expect(consumer.messages.every((message) => message.headers['x-tag'] === 'order')).toBe(true);
      // One key, one partition: what the bounds say each partition holds is what was delivered from it.
      for (const { partition, high } of bounds) {
        const fromPartition = consumer.messages.filter((message) => message.partition === partition);
        expect(fromPartition.map((message) => message.offset)).toEqual(range(Number(high)).map(String));
        expect(new Set(fromPartition.map((message) => message.key)).size).toBeLessThanOrEqual(keys.length);
      }
    });

    it('a consumer group resumes after what it marked, neither losing nor repeating a message', async () => {
      const topic = await freshTopic(3);
      const groupId = `it-resume-${uniqueSuffix()}`;
      await bus.publish(topic, keyed('k1', 0, 20, 'resume').concat(keyed('k2', 0, 20, 'resume')));
      const first = await consume(topic, groupId);
      await waitFor('the first 40', () => Promise.resolve(first.messages.length >= 40));
      await first.handle.stop();

      await bus.publish(topic, keyed('k1', 20, 5, 'resume').concat(keyed('k2', 20, 5, 'resume')));
      const second = await consume(topic, groupId);
      await waitFor('the next 10', () => Promise.resolve(second.messages.length >= 10));
      // Nothing more arrives: the group's stored offsets hold.
      await bus.publish(topic, keyed('k3', 0, 1, 'marker'));
      await waitFor('the marker', () => Promise.resolve(second.messages.some((message) => message.key === 'k3')));
      expect(sequencesByKey(second.messages)).toEqual({ k1: range(5, 20), k2: range(5, 20), k3: [0] });
    });

    it('redelivers a message whose handler threw, and every message after it, in order', async () => {
      const topic = await freshTopic(1);
      await bus.publish(topic, keyed('k', 0, 10, 'redeliver'));
      let refusals = 2;
      const consumer = await consume(topic, `it-redeliver-${uniqueSuffix()}`, {
        refuse: (message) => {
          if (seqOf(message) !== 5 || refusals === 0) return false;
          refusals -= 1;
          return true;
        },
      });
      await waitFor('all 10 after the refusals', () => Promise.resolve(consumer.messages.length >= 10), 60_000);
      expect(refusals).toBe(0);
      expect(consumer.messages.map(seqOf)).toEqual(range(10));
    });

    it('redelivers after a handler threw a TypeError, and does not stop the consumer for good', async () => {
      // kafkajs never retries a TypeError: thrown as it is, it stopped the consumer until the process restarted.
      const topic = await freshTopic(1);
      await bus.publish(topic, keyed('k', 0, 10, 'type-error'));
      let refusals = 1;
      const consumer = await consume(topic, `it-type-error-${uniqueSuffix()}`, {
        refuse: (message) => seqOf(message) === 5 && refusals-- > 0,
        refusal: () => new TypeError("Cannot destructure property 'partitions' of undefined"),
      });
      await waitFor('all 10 after the TypeError', () => Promise.resolve(consumer.messages.length >= 10), 60_000);
      expect(consumer.messages.map(seqOf)).toEqual(range(10));
      expect(consumer.events).not.toContainEqual(expect.objectContaining({ type: 'crashed', restarting: false }));
    });

    it('creates new topics asked for by several callers at once, each answered once its topics are led', async () => {
      // Two projections dead-lettering at once each create a topic; with one admin client's metadata shared between
      // them, one call read a topic's offsets from metadata the other's refresh had replaced.
      const specs: TopicSpec[] = range(6).map(() => ({
        name: `it.contract.${uniqueSuffix()}`,
        partitions: 3,
        retentionMs: -1,
        cleanupPolicy: 'delete',
        description: 'event bus contract test topic',
      }));
      await Promise.all([...specs, ...specs].map((spec) => bus.ensureTopics([spec])));
      for (const spec of specs) {
        const bounds = await bus.partitionBounds(spec.name);
        expect(bounds.map(({ partition }) => partition).sort()).toEqual(range(3));
      }
    });

    it('a stop before marking leaves the batch to the next member of the group', async () => {
      const topic = await freshTopic(1);
      const groupId = `it-unmarked-${uniqueSuffix()}`;
      await bus.publish(topic, keyed('k', 0, 5, 'unmarked'));
      const seen: IncomingMessage[] = [];
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const handle = await bus.subscribeBatches({
        groupId,
        topics: [topic],
        fromBeginning: true,
        handleBatch: async (batch) => {
          seen.push(...batch.messages);
          await held; // never marks anything
        },
      });
      await waitFor('the batch in hand', () => Promise.resolve(seen.length > 0));
      const stopped = handle.stop();
      release();
      await stopped;
      await handle.stop(); // safe twice

      const next = await consume(topic, groupId);
      await waitFor('the 5 again', () => Promise.resolve(next.messages.length >= 5));
      expect(next.messages.map(seqOf)).toEqual(range(5));
    });

    it('replays from the beginning for a new group, and from the end as it stands for a new group that asks so', async () => {
      const topic = await freshTopic(3);
      await bus.publish(topic, keyed('old', 0, 12, 'replay'));
      const replay = await consume(topic, `it-replay-${uniqueSuffix()}`);
      await waitFor('the 12 old messages', () => Promise.resolve(replay.messages.length >= 12));
      expect(sequencesByKey(replay.messages)).toEqual({ old: range(12) });

      const latest = await consume(topic, `it-latest-${uniqueSuffix()}`, { fromBeginning: false });
      await latest.joined();
      // Kafka resolves "the end" at the group's first fetch, which may follow a publish made right after joining:
      // publish markers until one arrives, then check that nothing older did.
      let markers = 0;
      await waitFor('a marker', async () => {
        await bus.publish(topic, keyed('new', markers, 1, 'replay'));
        markers += 1;
        return latest.messages.length > 0;
      });
      expect(latest.messages.every((message) => message.key === 'new')).toBe(true);
    });

    it('positionsFor replaces the stored positions of the assigned partitions', async () => {
      const topic = await freshTopic(1);
      const groupId = `it-seek-${uniqueSuffix()}`;
      await bus.publish(topic, keyed('k', 0, 10, 'seek'));
      const first = await consume(topic, groupId);
      await waitFor('all 10', () => Promise.resolve(first.messages.length >= 10));
      await first.handle.stop();

      const assignments: string[] = [];
      const second = await consume(topic, groupId, {
        positionsFor: (assigned) => {
          assignments.push(...assigned.map(({ topic: t, partition }) => `${t}/${partition}`));
          return Promise.resolve(assigned.map(({ topic: t, partition }) => ({ topic: t, partition, offset: '6' })));
        },
      });
      await waitFor('the 4 from offset 6', () => Promise.resolve(second.messages.length >= 4));
      expect(assignments).toContain(`${topic}/0`);
      expect(second.messages.map(seqOf).slice(0, 4)).toEqual([6, 7, 8, 9]);
    });

    it('a deleted group starts over', async () => {
      const topic = await freshTopic(1);
      const groupId = `it-delete-${uniqueSuffix()}`;
      await bus.publish(topic, keyed('k', 0, 3, 'delete'));
      const first = await consume(topic, groupId);
      await waitFor('all 3', () => Promise.resolve(first.messages.length >= 3));
      await first.handle.stop();

      await bus.deleteGroups([groupId, `it-never-existed-${uniqueSuffix()}`]);
      const again = await consume(topic, groupId);
      await waitFor('the 3 again', () => Promise.resolve(again.messages.length >= 3));
      expect(again.messages.map(seqOf)).toEqual(range(3));
    });

    it('per-message subscriptions see every message once, in order per key', async () => {
      const topic = await freshTopic(3);
      const received: IncomingMessage[] = [];
      await bus.publish(topic, keyed('a', 0, 15, 'each').concat(keyed('b', 0, 15, 'each')));
      await bus.subscribe({
        groupId: `it-each-${uniqueSuffix()}`,
        topics: [topic],
        fromBeginning: true,
        handle: (message) => {
          received.push(message);
          return Promise.resolve();
        },
      });
      await waitFor('30 messages', () => Promise.resolve(received.length >= 30));
      expect(sequencesByKey(received)).toEqual({ a: range(15), b: range(15) });
    });
  });
}
