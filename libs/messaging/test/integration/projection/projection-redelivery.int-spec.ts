import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { Registry } from 'prom-client';
import { KAFKA_HEADERS, type TopicName, TOPICS } from '@lx/contracts';
import {
  type BatchSubscription,
  type ConsumerHandle,
  EventBus,
  type IncomingMessage,
  type PartitionBounds,
  type ProjectedEvent,
  type Projection,
  ProjectionConsumer,
  type ProjectionTransaction,
} from '../../../src';
import { requireEnv, uniqueSuffix } from '@lx/testing';

const TOPIC = TOPICS.locationGroupEvents.name;
const PARTITION = 0;

/** Not idempotent on purpose: every event applied appends a row, so only the stored-offset skip can prevent a repeat. */
class AppendingProjection implements Projection {
  readonly name = 'appending';
  readonly topics: readonly TopicName[] = [TOPIC];
  readonly eventTypes = ['LOCATION_GROUP_CREATED'] as const;
  calls = 0;

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    this.calls += 1;
    for (const projected of events) {
      await transaction.query(`INSERT INTO applied ("offset") VALUES ($1)`, [projected.offset]);
    }
  }
}

/**
 * An event log that delivers exactly the batches the test hands it. A redelivery through real Kafka needs a race (the
 * Kafka commit lagging the Postgres one at a crash, a rebalance, a zombie member), and the consumer seeks to the stored
 * offsets whenever partitions are assigned, so a test through Kafka rarely reaches the skip at all; this log never
 * seeks, and delivers what it is told to.
 */
class ScriptedEventBus extends EventBus {
  subscription?: BatchSubscription;

  async subscribeBatches(subscription: BatchSubscription): Promise<ConsumerHandle> {
    this.subscription = subscription;
    return { stop: async () => undefined };
  }

  /** Delivers messages of TOPIC at `offsets` (consecutive) as one batch, as Kafka would after a redelivery. */
  async deliver(offsets: number[]): Promise<void> {
    const messages: IncomingMessage[] = offsets.map((offset) => {
      const id = randomUUID();
      return {
        topic: TOPIC,
        partition: PARTITION,
        offset: String(offset),
        key: id,
        value: Buffer.from(
          JSON.stringify({
            id: randomUUID(),
            type: 'LOCATION_GROUP_CREATED',
            timestamp: new Date().toISOString(),
            source: 'it',
            data: { id, name: `group at ${offset}`, type: 'OTHER' },
          }),
        ),
        headers: { [KAFKA_HEADERS.aggregateVersion]: '1' },
      };
    });
    await this.subscription!.handleBatch(
      { topic: TOPIC, partition: PARTITION, messages },
      { markConsumed: () => undefined, heartbeat: async () => undefined, isActive: () => true },
    );
  }

  async publish(): Promise<void> {
    throw new Error('nothing is dead-lettered in this test');
  }
  async subscribe(): Promise<void> {
    throw new Error('not used');
  }
  async partitionBounds(topic: string): Promise<readonly PartitionBounds[]> {
    return [{ topic, partition: PARTITION, low: '0', high: '0' }];
  }
  async deleteGroups(): Promise<void> {}
  async ensureTopics(): Promise<void> {}
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

/**
 * The stored-offset layer of every projection consumer, on its own: the next offset stored with the read model in the
 * same transaction, read FOR UPDATE before applying, and messages below it skipped. It is shared by all projections
 * (location read model, statistics), so it is tested once, here, with a projection that has no version guard.
 */
describe('ProjectionConsumer stored-offset skip (real Postgres, scripted log)', () => {
  const suffix = uniqueSuffix();
  const schema = `projection_redelivery_it_${suffix}`;
  const groupId = `it-redelivery-${suffix}`;
  const pool = new Pool({ connectionString: requireEnv('DATABASE_URL'), max: 2, options: `-c search_path=${schema}` });
  const bus = new ScriptedEventBus();
  const projection = new AppendingProjection();
  const registry = new Registry();
  const consumer = new ProjectionConsumer(pool, bus, projection, { groupId, batchSize: 100, registry });

  const appliedOffsets = async () =>
    (await pool.query<{ offset: string }>(`SELECT "offset" FROM applied ORDER BY "offset"`)).rows.map((row) =>
      Number(row.offset),
    );
  const storedNextOffset = async () =>
    Number(
      (
        await pool.query<{ next_offset: string }>(
          `SELECT next_offset FROM consumer_offsets WHERE group_id = $1 AND topic = $2 AND partition = $3`,
          [groupId, TOPIC, PARTITION],
        )
      ).rows[0]?.next_offset,
    );
  const redelivered = async () =>
    (await registry.getSingleMetric('projection_redelivered_messages_total')!.get()).values.find(
      (value) => value.labels['projection'] === projection.name,
    )?.value ?? 0;

  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(`CREATE TABLE consumer_offsets (group_id text, topic text, partition int, next_offset bigint,
      updated_at timestamptz DEFAULT now(), PRIMARY KEY (group_id, topic, partition))`);
    await pool.query(`CREATE TABLE applied ("offset" bigint)`);
    await consumer.start();
  });

  afterAll(async () => {
    await consumer.stop();
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  });

  it('given a batch applied and its next offset stored, when the same batch is delivered again, then the projection is not called and the redelivery is counted', async () => {
    await bus.deliver([0, 1, 2, 3, 4]);
    expect(await appliedOffsets()).toEqual([0, 1, 2, 3, 4]);
    expect(await storedNextOffset()).toBe(5);
    const calls = projection.calls;

    await bus.deliver([0, 1, 2, 3, 4]);

    expect(projection.calls).toBe(calls);
    expect(await appliedOffsets()).toEqual([0, 1, 2, 3, 4]);
    expect(await storedNextOffset()).toBe(5);
    expect(await redelivered()).toBe(5);
  });

  it('given a redelivered batch that reaches past the stored offset, when applied, then only the messages from the stored offset on are applied', async () => {
    await bus.deliver([3, 4, 5, 6, 7]);

    expect(await appliedOffsets()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await storedNextOffset()).toBe(8);
    expect(await redelivered()).toBe(7);
  });

  it('given stored offsets, when partitions are assigned, then the consumer starts them at the stored offsets, and the others at the start of the log', async () => {
    const positions = await bus.subscription!.positionsFor!([
      { topic: TOPIC, partition: PARTITION },
      { topic: TOPIC, partition: 1 },
    ]);
    expect(positions).toEqual([
      { topic: TOPIC, partition: PARTITION, offset: '8' },
      { topic: TOPIC, partition: 1, offset: '0' },
    ]);
  });
});
