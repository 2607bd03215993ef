import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { Registry } from 'prom-client';
import { dlqTopic, KAFKA_HEADERS, type TopicName, TOPICS } from '@lx/contracts';
import {
  type BatchSubscription,
  type ConsumerHandle,
  EventBus,
  type IncomingMessage,
  type OutgoingMessage,
  type PartitionBounds,
  PermanentProjectionError,
  type ProjectedEvent,
  type Projection,
  ProjectionConsumer,
  type ProjectionTransaction,
  PostgresEventLog,
} from '../../../src';
import { requireEnv, uniqueSuffix, waitFor } from '@lx/testing';

const TOPIC = TOPICS.locationGroupEvents.name;
const PARTITION = 0;

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/**
 * Not idempotent on purpose: every event applied appends a row, so only the stored-offset skip can prevent a repeat.
 * An event at a `poisoned` offset fails permanently (dead-lettered, then skipped); one at `transientlyAt` fails
 * transiently, once.
 */
class AppendingProjection implements Projection {
  readonly name = 'appending';
  readonly topics: readonly TopicName[] = [TOPIC];
  readonly eventTypes = ['LOCATION_GROUP_CREATED'] as const;
  calls = 0;

  constructor(
    private readonly poisoned: ReadonlySet<string> = new Set(),
    private transientlyAt?: string,
  ) {}

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    this.calls += 1;
    for (const projected of events) {
      if (this.poisoned.has(projected.offset)) {
        throw new PermanentProjectionError(`offset ${projected.offset} poisoned`);
      }
      if (projected.offset === this.transientlyAt) {
        this.transientlyAt = undefined;
        throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
      }
      await transaction.query(`INSERT INTO applied ("offset") VALUES ($1)`, [projected.offset]);
    }
  }
}

/** A valid LOCATION_GROUP_CREATED event as the projection's topic carries it. */
function groupCreated(name: string): { key: string; value: Buffer; headers: Record<string, string> } {
  const id = randomUUID();
  return {
    key: id,
    value: Buffer.from(
      JSON.stringify({
        id: randomUUID(),
        type: 'LOCATION_GROUP_CREATED',
        timestamp: new Date().toISOString(),
        source: 'it',
        data: { id, name, type: 'OTHER' },
      }),
    ),
    headers: { [KAFKA_HEADERS.aggregateVersion]: '1' },
  };
}

async function createTables(pool: Pool, schema: string): Promise<void> {
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(`CREATE TABLE ${schema}.consumer_offsets (group_id text, topic text, partition int,
    next_offset bigint, updated_at timestamptz DEFAULT now(), PRIMARY KEY (group_id, topic, partition))`);
  await pool.query(`CREATE TABLE ${schema}.applied ("offset" bigint)`);
}

/** What the test reads back: the offsets applied (with repeats), and the next offset stored for PARTITION. */
function readBack(pool: Pool, groupId: string) {
  return {
    appliedOffsets: async () =>
      (await pool.query<{ offset: string }>(`SELECT "offset" FROM applied ORDER BY "offset"`)).rows.map((row) =>
        Number(row.offset),
      ),
    storedNextOffset: async () =>
      Number(
        (
          await pool.query<{ next_offset: string }>(
            `SELECT next_offset FROM consumer_offsets WHERE group_id = $1 AND topic = $2 AND partition = $3`,
            [groupId, TOPIC, PARTITION],
          )
        ).rows[0]?.next_offset,
      ),
  };
}

/**
 * An event log that delivers exactly the batches the test hands it. A redelivery through real Kafka needs a race (the
 * Kafka commit lagging the Postgres one at a crash, a rebalance, a zombie member), and the consumer seeks to the stored
 * offsets whenever partitions are assigned, so a test through Kafka rarely reaches the skip at all; this log never
 * seeks, and delivers what it is told to.
 */
class ScriptedEventBus extends EventBus {
  readonly name = 'scripted';
  subscription?: BatchSubscription;

  /** `onPublish` receives the dead letters; without it, none are expected. */
  constructor(private readonly onPublish?: (topic: string, messages: readonly OutgoingMessage[]) => Promise<void>) {
    super();
  }

  async subscribeBatches(subscription: BatchSubscription): Promise<ConsumerHandle> {
    this.subscription = subscription;
    return { stop: async () => undefined };
  }

  /** Delivers messages of TOPIC at `offsets` (consecutive) as one batch, as Kafka would after a redelivery. */
  async deliver(offsets: number[]): Promise<void> {
    const messages: IncomingMessage[] = offsets.map((offset) => {
      const { key, value, headers } = groupCreated(`group at ${offset}`);
      return { topic: TOPIC, partition: PARTITION, offset: String(offset), key, value, headers };
    });
    await this.subscription!.handleBatch(
      { topic: TOPIC, partition: PARTITION, messages },
      { markConsumed: () => undefined, heartbeat: async () => undefined, isActive: () => true },
    );
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (!this.onPublish) throw new Error('nothing is dead-lettered in this test');
    await this.onPublish(topic, messages);
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

  const { appliedOffsets, storedNextOffset } = readBack(pool, groupId);
  const redelivered = async () =>
    (await registry.getSingleMetric('projection_redelivered_messages_total')!.get()).values.find(
      (value) => value.labels['projection'] === projection.name,
    )?.value ?? 0;

  beforeAll(async () => {
    await createTables(pool, schema);
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

/**
 * The offset guard of the skip path: a message whose event cannot be applied is dead-lettered and then skipped in a
 * transaction of its own, which stores its next offset only if the message is not older than the stored position.
 * Between the failed apply and the skip, another member may have applied past the message: through Kafka, the member
 * the partition was reassigned to in a rebalance, while the old member (a zombie) still works through its batch.
 * Without the guard, the zombie's skip would move the stored position back, and the messages after it would be
 * applied again once the partition is next assigned.
 */
describe('ProjectionConsumer skip of a dead-lettered message already passed by another member (real Postgres, scripted log)', () => {
  const suffix = uniqueSuffix();
  const schema = `projection_skip_it_${suffix}`;
  const groupId = `it-skip-${suffix}`;
  const pool = new Pool({ connectionString: requireEnv('DATABASE_URL'), max: 4, options: `-c search_path=${schema}` });
  const { appliedOffsets, storedNextOffset } = readBack(pool, groupId);
  const poisoned = new Set(['3']);
  const letters: { member: string; offset: string | undefined }[] = [];
  const recordLetters = (member: string) => async (_topic: string, messages: readonly OutgoingMessage[]) => {
    letters.push(...messages.map((message) => ({ member, offset: message.headers?.[KAFKA_HEADERS.dlqSourceOffset] })));
  };
  /** The member the partition was reassigned to. */
  const ownerBus = new ScriptedEventBus(recordLetters('owner'));
  const owner = new ProjectionConsumer(pool, ownerBus, new AppendingProjection(poisoned), { groupId, batchSize: 100 });
  /** The old member: while it dead-letters offset 3, the new owner applies 0–9. */
  const zombieBus = new ScriptedEventBus(async (topic, messages) => {
    await recordLetters('zombie')(topic, messages);
    await ownerBus.deliver(range(0, 10));
  });
  const zombie = new ProjectionConsumer(pool, zombieBus, new AppendingProjection(poisoned), {
    groupId,
    batchSize: 100,
  });
  /** The member the partition is assigned to next (a restart or the next rebalance). */
  const nextBus = new ScriptedEventBus(recordLetters('next'));
  const next = new ProjectionConsumer(pool, nextBus, new AppendingProjection(poisoned), { groupId, batchSize: 100 });

  beforeAll(async () => {
    await createTables(pool, schema);
    await Promise.all([owner.start(), zombie.start()]);
  });

  afterAll(async () => {
    await Promise.all([owner.stop(), zombie.stop(), next.stop()]);
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  });

  it('given a member dead-lettering offset 3 while the new owner applies offsets 0–9, when the member then skips offset 3 and the partition is assigned again, then the stored position stays at 10 and nothing is applied twice', async () => {
    await zombieBus.deliver([0, 1, 2, 3]);
    const storedAfterSkip = await storedNextOffset();

    await next.start();
    const [position] = await nextBus.subscription!.positionsFor!([{ topic: TOPIC, partition: PARTITION }]);
    await nextBus.deliver(range(Number(position!.offset), 10));

    expect({ storedAfterSkip, nextStartsAt: position!.offset, applied: await appliedOffsets() }).toEqual({
      storedAfterSkip: 10,
      nextStartsAt: '10',
      applied: [0, 1, 2, 4, 5, 6, 7, 8, 9],
    });
    expect(await storedNextOffset()).toBe(10);
    // Both members dead-lettered offset 3 (dead letters are at least once); nothing else was.
    expect(letters).toEqual([
      { member: 'zombie', offset: '3' },
      { member: 'owner', offset: '3' },
    ]);
  });
});

/**
 * The same property through the embedded profile's event log (PostgresEventLog). There a partition is consumed by one
 * loop of the group's only member, batch after batch, and that loop is the only writer of the group's stored offsets:
 * nothing can apply past a message between its failed apply and its skip, so the skip never meets a message older
 * than the stored position. The log redelivers when a batch handler throws (from the first message it did not mark)
 * and when a member starts (from the position the consumer stored); here a transient failure right after the skip
 * makes the log deliver the skipped message again, and a new member takes over afterwards.
 */
describe('ProjectionConsumer skip of a dead-lettered message through the embedded log (real Postgres, PostgresEventLog)', () => {
  const suffix = uniqueSuffix();
  const schema = `projection_skip_embedded_it_${suffix}`;
  const groupId = `it-skip-embedded-${suffix}`;
  const pool = new Pool({ connectionString: requireEnv('DATABASE_URL'), max: 4, options: `-c search_path=${schema}` });
  const log = new PostgresEventLog(pool, { schema: `${schema}_log`, pollIntervalMs: 100 });
  const { appliedOffsets, storedNextOffset } = readBack(pool, groupId);
  const registry = new Registry();
  const consumers: ProjectionConsumer[] = [];
  const consumer = (projection: AppendingProjection) => {
    const created = new ProjectionConsumer(pool, log, projection, { groupId, batchSize: 100, registry });
    consumers.push(created);
    return created;
  };
  const redelivered = async () =>
    (await registry.getSingleMetric('projection_redelivered_messages_total')!.get()).values[0]?.value ?? 0;
  const logged = async (topic: string) =>
    (await log.partitionBounds(topic)).reduce((sum, { low, high }) => sum + Number(high) - Number(low), 0);
  const logStoredOffset = async () =>
    (
      await pool.query<{ next_offset: string }>(
        `SELECT next_offset FROM ${schema}_log.group_offsets WHERE group_id = $1 AND topic = $2 AND partition = $3`,
        [groupId, TOPIC, PARTITION],
      )
    ).rows[0]?.next_offset;

  beforeAll(async () => {
    await createTables(pool, schema);
    await log.ensureTopics([{ ...TOPICS.locationGroupEvents, partitions: 1 }]);
  });

  afterAll(async () => {
    for (const created of consumers) await created.stop();
    await log.close();
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.query(`DROP SCHEMA ${schema}_log CASCADE`);
    await pool.end();
  });

  it('given offset 3 dead-lettered and skipped, when the log delivers it again and a new member takes over, then the stored position never moves back and nothing is applied twice', async () => {
    await log.publish(
      TOPIC,
      range(0, 10).map((offset) => groupCreated(`group at ${offset}`)),
    );
    const first = consumer(new AppendingProjection(new Set(['3']), '4'));
    await first.start();
    await waitFor('offsets 0–9 passed', async () => (await storedNextOffset()) === 10);
    await waitFor('the log stored offset 10', async () => (await logStoredOffset()) === '10');
    // The batch failed after the skip, so the log delivered 0–9 again: 0–3 (the skipped 3 included) were passed over.
    expect(await redelivered()).toBe(4);
    await first.stop();

    await log.publish(TOPIC, [groupCreated('group at 10')]);
    const second = consumer(new AppendingProjection(new Set(['3'])));
    await second.start();
    await waitFor('offset 10 applied', async () => (await appliedOffsets()).includes(10));
    await waitFor('the log stored offset 11', async () => (await logStoredOffset()) === '11');

    expect({ applied: await appliedOffsets(), stored: await storedNextOffset() }).toEqual({
      applied: [0, 1, 2, 4, 5, 6, 7, 8, 9, 10],
      stored: 11,
    });
    expect(await redelivered()).toBe(4);
    expect(await logged(dlqTopic(TOPIC, groupId))).toBe(1);
  });
});
