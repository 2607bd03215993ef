import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { dlqTopic, EVENT_CATALOG, KAFKA_HEADERS, TOPICS, type TopicName } from '@lx/contracts';
import {
  KafkaEventBus,
  PermanentProjectionError,
  type ProjectedEvent,
  type Projection,
  ProjectionConsumer,
  type ProjectionTransaction,
} from '../../../src';
import { requireEnv, testKafka, testKafkaClient, testTopic, uniqueSuffix, waitFor } from '@lx/testing';

const TOPIC = TOPICS.locationGroupEvents.name;

/**
 * Not idempotent on purpose: every application appends a row. Exactly-once effect must then come from the offsets the
 * consumer stores in the same transaction, not from a version guard.
 */
class RecordingProjection implements Projection {
  readonly name = 'recording';
  readonly topics: readonly TopicName[] = [TOPIC];
  readonly eventTypes = ['LOCATION_GROUP_CREATED', 'LOCATION_GROUP_UPDATED'] as const;
  /** Names that make apply fail: permanently, or transiently a given number of times. */
  readonly poisoned = new Set<string>();
  transientFailures = 0;

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    for (const projected of events) {
      const data = projected.event.data as { id: string; name: string };
      await transaction.query(`INSERT INTO applied (group_id, name, version, "offset") VALUES ($1, $2, $3, $4)`, [
        data.id,
        data.name,
        projected.version,
        projected.offset,
      ]);
      if (this.poisoned.has(data.name)) throw new PermanentProjectionError(`${data.name} is poisoned`);
    }
    if (this.transientFailures > 0) {
      this.transientFailures -= 1;
      throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    }
  }
}

describe('ProjectionConsumer against real Postgres and Kafka', () => {
  const suffix = uniqueSuffix();
  const schema = `projection_it_${suffix}`;
  const groupId = `it-projection-${suffix}`;
  const kafka = testKafka(`it-projection-${suffix}`);
  const pool = new Pool({ connectionString: requireEnv('DATABASE_URL'), max: 4, options: `-c search_path=${schema}` });
  const bus = new KafkaEventBus(kafka);
  const tag = `it-${suffix}`;
  let consumer: ProjectionConsumer | undefined;

  const publishGroups = async (names: string[], headers: (name: string) => Record<string, string> = () => ({})) => {
    await bus.publish(
      TOPIC,
      names.map((name) => {
        const id = randomUUID();
        const event = {
          id: randomUUID(),
          type: 'LOCATION_GROUP_CREATED',
          timestamp: new Date().toISOString(),
          source: 'it',
          data: { id, name, type: 'OTHER' },
        };
        return {
          key: id,
          value: JSON.stringify(event),
          headers: { [KAFKA_HEADERS.aggregateVersion]: '1', ...headers(name) },
        };
      }),
    );
  };
  const applied = async () =>
    (
      await pool.query<{ name: string; offset: string }>(
        `SELECT name, "offset" FROM applied WHERE name LIKE $1 ORDER BY name`,
        [`${tag}%`],
      )
    ).rows;
  const start = async (projection: Projection, options: { batchSize?: number } = {}) => {
    consumer = new ProjectionConsumer(pool, bus, projection, {
      groupId,
      batchSize: options.batchSize ?? 100,
      failingAfterMs: 0,
    });
    await consumer.start();
    return consumer;
  };

  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(`CREATE TABLE consumer_offsets (group_id text, topic text, partition int, next_offset bigint,
      updated_at timestamptz DEFAULT now(), PRIMARY KEY (group_id, topic, partition))`);
    await pool.query(`CREATE TABLE applied (group_id uuid, name text, version int, "offset" bigint)`);
    // Start at the end of the topic: only this test's messages are applied.
    for (const { partition, high } of await bus.partitionBounds(TOPIC)) {
      await pool.query(
        `INSERT INTO consumer_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, $4)`,
        [groupId, TOPIC, partition, high],
      );
    }
  });

  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  afterAll(async () => {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
    await bus.deleteGroups([groupId]);
    await bus.close();
  });

  it('applies each message once, and again once after its Kafka offsets were lost', async () => {
    const names = Array.from({ length: 60 }, (_, index) => `${tag}-a-${String(index).padStart(3, '0')}`);
    const projection = new RecordingProjection();
    await start(projection, { batchSize: 7 });
    await publishGroups(names);
    await waitFor('60 applied', async () => (await applied()).length >= 60);
    await consumer!.stop();

    // A crash between the Postgres commit and the Kafka commit, taken to the extreme: Kafka forgets everything.
    const admin = testKafkaClient().admin();
    await admin.connect();
    await admin.setOffsets({
      groupId: testTopic(groupId),
      topic: testTopic(TOPIC),
      partitions: (await bus.partitionBounds(TOPIC)).map(({ partition }) => ({ partition, offset: '0' })),
    });
    await admin.disconnect();

    await start(projection);
    const more = [`${tag}-b-001`];
    await publishGroups(more);
    await waitFor('the later message', async () => (await applied()).some((row) => row.name === more[0]));
    const rows = await applied();
    expect(rows.map((row) => row.name)).toEqual([...names, ...more]);
  });

  it("starts a new group at 'end' where its offsets committed to Kafka stand (an earlier consumer's), else at the end", async () => {
    const startAtEnd = async (group: string) => {
      consumer = new ProjectionConsumer(pool, bus, new RecordingProjection(), {
        groupId: group,
        batchSize: 100,
        startAt: 'end',
      });
      await consumer.start();
    };
    await publishGroups([`${tag}-e-1`]);
    const afterFirst = await bus.partitionBounds(TOPIC);
    await publishGroups([`${tag}-e-2`, `${tag}-e-3`]);
    // An earlier consumer of the group, which kept its offsets in Kafka only, had consumed e-1.
    const upgraded = `${groupId}-upgraded`;
    const admin = testKafkaClient().admin();
    await admin.connect();
    await admin.setOffsets({
      groupId: testTopic(upgraded),
      topic: testTopic(TOPIC),
      partitions: afterFirst.map(({ partition, high }) => ({ partition, offset: high })),
    });
    await admin.disconnect();

    await startAtEnd(upgraded);
    await waitFor(
      'e-2 and e-3',
      async () => (await applied()).filter((row) => row.name.startsWith(`${tag}-e`)).length >= 2,
    );
    await consumer!.stop();
    expect((await applied()).filter((row) => row.name.startsWith(`${tag}-e`)).map((row) => row.name)).toEqual([
      `${tag}-e-2`,
      `${tag}-e-3`,
    ]);

    // A group that never consumed starts at the end, stored at once: nothing before it, everything after.
    const fresh = `${groupId}-fresh`;
    await startAtEnd(fresh);
    await waitFor('its start stored', async () => {
      const { rows } = await pool.query('SELECT 1 FROM consumer_offsets WHERE group_id = $1', [fresh]);
      return rows.length === afterFirst.length;
    });
    await publishGroups([`${tag}-e-4`]);
    await waitFor('e-4', async () => (await applied()).some((row) => row.name === `${tag}-e-4`));
    expect((await applied()).filter((row) => row.name.startsWith(`${tag}-e`)).map((row) => row.name)).toEqual([
      `${tag}-e-2`,
      `${tag}-e-3`,
      `${tag}-e-4`,
    ]);
    await bus.deleteGroups([upgraded, fresh]);
  });

  it('retries a transient failure without applying twice, reporting failing until it recovers', async () => {
    const projection = new RecordingProjection();
    projection.transientFailures = 2;
    const names = [`${tag}-c-001`, `${tag}-c-002`];
    const running = await start(projection);
    await publishGroups(names);
    await waitFor('failing reported', async () => running.health().state === 'failing');
    await waitFor(
      'applied after the retries',
      async () => (await applied()).filter((row) => row.name.startsWith(`${tag}-c`)).length === 2,
    );
    // The rows are visible once the transaction commits; the consumer clears the failure just after COMMIT returns to it.
    await waitFor('joined reported', async () => running.health().state === 'joined');
    expect((await applied()).filter((row) => row.name.startsWith(`${tag}-c`)).map((row) => row.name)).toEqual(names);
  });

  it('dead-letters the one message a permanent failure is about, and the invalid ones, applying the rest once', async () => {
    const projection = new RecordingProjection();
    const names = Array.from({ length: 6 }, (_, index) => `${tag}-d-${index}`);
    projection.poisoned.add(names[2]!);
    await start(projection, { batchSize: 50 });
    // All on one key: one partition, in order, one batch.
    const key = randomUUID();
    await bus.publish(TOPIC, [
      ...names.map((name) => ({
        key,
        value: JSON.stringify({
          id: randomUUID(),
          type: 'LOCATION_GROUP_CREATED',
          timestamp: new Date().toISOString(),
          source: 'it',
          data: { id: randomUUID(), name, type: 'OTHER' },
        }),
        headers: { [KAFKA_HEADERS.aggregateVersion]: '1' },
      })),
      { key, value: 'not json', headers: {} },
      {
        key,
        value: JSON.stringify({ type: 'LOCATION_CREATED', data: {} }),
        headers: {},
      },
    ]);
    const last = `${tag}-d-last`;
    await bus.publish(TOPIC, [
      {
        key,
        value: JSON.stringify({
          id: randomUUID(),
          type: 'LOCATION_GROUP_UPDATED',
          timestamp: new Date().toISOString(),
          source: 'it',
          data: { id: randomUUID(), name: last, type: 'OTHER' },
        }),
        headers: { [KAFKA_HEADERS.aggregateVersion]: '2' },
      },
    ]);
    await waitFor('the message after the bad ones', async () => (await applied()).some((row) => row.name === last));
    const names_ = (await applied()).filter((row) => row.name.startsWith(`${tag}-d`)).map((row) => row.name);
    expect(names_).toEqual([...names.filter((name) => name !== names[2]), last].sort());

    const letters: { value: string; error: string; source: string }[] = [];
    const reader = testKafkaClient().consumer({
      groupId: testTopic(`it-dlq-${suffix}`),
    });
    await reader.connect();
    await reader.subscribe({ topic: testTopic(dlqTopic(TOPIC, groupId)), fromBeginning: true });
    await reader.run({
      eachMessage: async ({ message }) => {
        if (message.key?.toString() !== key) return;
        letters.push({
          value: message.value?.toString() ?? '',
          error: String(message.headers?.[KAFKA_HEADERS.dlqError]),
          source: String(message.headers?.[KAFKA_HEADERS.dlqSourceTopic]),
        });
      },
    });
    try {
      await waitFor('three dead letters', async () => letters.length >= 3);
      expect(letters.map((letter) => letter.error)).toEqual([
        expect.stringContaining(`${names[2]} is poisoned`),
        expect.stringContaining('the value is not JSON'),
        expect.stringContaining('id is required'),
      ]);
      expect(letters[1]!.value).toBe('not json');
      // The source as named on the broker, where an operator finds the original.
      expect(letters.map((letter) => letter.source)).toEqual(Array(3).fill(testTopic(TOPIC)));
    } finally {
      await reader.disconnect();
    }
    expect(EVENT_CATALOG.LOCATION_GROUP_CREATED.topic).toBe(TOPIC);
  });
});
