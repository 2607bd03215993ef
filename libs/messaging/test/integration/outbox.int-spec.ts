import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Gauge } from 'prom-client';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DataSource } from 'typeorm';
import { DatabaseModule, MetricsModule, MetricsRegistry } from '@lx/platform';
import {
  createOutboxTable,
  dropOutboxTable,
  type IncomingMessage,
  KafkaEventBus,
  MessagingModule,
  Outbox,
  OutboxModule,
  OutboxRetentionSchedule,
} from '../../src';
import { requireEnv, testKafka, uniqueSuffix, waitFor } from '@lx/testing';

class CreateOutbox1700000000000 implements MigrationInterface {
  name = 'CreateOutbox1700000000000';
  up = (queryRunner: QueryRunner) => createOutboxTable(queryRunner);
  down = (queryRunner: QueryRunner) => dropOutboxTable(queryRunner);
}

describe('transactional outbox with its relay, on real Postgres and Kafka', () => {
  const suffix = uniqueSuffix();
  const schema = `outbox_it_${suffix}`;
  const topic = `it.outbox.${suffix}`;
  const config = {
    database: { url: requireEnv('DATABASE_URL'), schema, poolSize: 4, migrateOnBoot: true },
    kafka: testKafka(`it-outbox-${suffix}`),
  };
  const contexts: INestApplicationContext[] = [];
  const received: IncomingMessage[] = [];

  async function startService(): Promise<INestApplicationContext> {
    @Module({
      imports: [
        MetricsModule,
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: [CreateOutbox1700000000000] }),
        MessagingModule.forRoot({ driver: 'kafka', kafka: config.kafka }),
        OutboxModule.forRoot({ retentionSeconds: 3600 }, { batchSize: 50 }),
      ],
    })
    class ServiceModule {}
    const context = await NestFactory.createApplicationContext(ServiceModule, { logger: false });
    await context.init();
    contexts.push(context);
    return context;
  }

  async function append(
    context: INestApplicationContext,
    keys: string[],
    from: number,
    count: number,
    rollback = false,
  ) {
    const outbox = context.get(Outbox);
    await context
      .get(DataSource)
      .transaction(async (manager) => {
        await outbox.append(
          manager,
          Array.from({ length: count }, (_, i) => ({
            topic,
            key: keys[i % keys.length]!,
            value: JSON.stringify({ key: keys[i % keys.length], seq: from + i }),
            headers: { 'x-seq': String(from + i) },
          })),
        );
        if (rollback) throw new Error('rolled back on purpose');
      })
      .catch((error: Error) => {
        if (!rollback) throw error;
      });
  }

  const unpublished = async (context: INestApplicationContext) =>
    Number((await context.get(DataSource).query('SELECT count(*) AS n FROM outbox WHERE published_at IS NULL'))[0].n);

  // The test's own consumer, independent of the service replicas it stops.
  const consumer = new KafkaEventBus({ ...config.kafka, clientId: `it-outbox-consumer-${suffix}` });

  beforeAll(async () => {
    await startService();
    await consumer.ensureTopics([
      { name: topic, partitions: 3, retentionMs: -1, cleanupPolicy: 'delete', description: 'test' },
    ]);
    await consumer.subscribe({
      groupId: `it-outbox-${suffix}`,
      topics: [topic],
      fromBeginning: true,
      handle: async (message) => {
        received.push(message);
      },
    });
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await consumer.close();
  });

  it('publishes committed messages in order per key, marks them, and never publishes a rolled-back one', async () => {
    const [service] = contexts as [INestApplicationContext];
    for (let batch = 0; batch < 6; batch += 1) await append(service, ['a', 'b', 'c'], batch * 50, 50);
    await append(service, ['a'], 10_000, 5, true);

    await waitFor('300 messages consumed', async () => received.length >= 300, 60_000);
    await waitFor('all rows marked published', async () => (await unpublished(service)) === 0);

    const seqs = (key: string) =>
      received.filter((m) => m.key === key).map((m) => (JSON.parse(m.value!.toString()) as { seq: number }).seq);
    for (const key of ['a', 'b', 'c']) {
      const sequence = seqs(key);
      expect(sequence).toEqual([...sequence].sort((x, y) => x - y));
    }
    expect(received).toHaveLength(300);
    expect(received.some((m) => Number(m.headers['x-seq']) >= 10_000)).toBe(false);
    expect(
      received.every((m) => m.headers['x-seq'] === String((JSON.parse(m.value!.toString()) as { seq: number }).seq)),
    ).toBe(true);

    const metrics = await service.get(MetricsRegistry).registry.getSingleMetricAsString('outbox_published_total');
    expect(metrics).toContain('outbox_published_total 300');
  });

  it('runs one relay per schema: a second replica waits, and takes over when the first stops', async () => {
    const second = await startService();
    const [first] = contexts as [INestApplicationContext];
    await append(second, ['d'], 0, 20);
    await waitFor('20 more messages', async () => received.length >= 320, 90_000);
    // A replica that waits reports no lag of its own: a value left from when it led is cleared.
    const lag = second.get(MetricsRegistry).registry.getSingleMetric('outbox_oldest_unpublished_age_seconds') as Gauge;
    lag.set(500);
    await waitFor('the waiting replica to report 0', async () => (await lag.get()).values[0]?.value === 0, 5_000);

    await first.close();
    contexts.splice(0, 1);
    await append(second, ['d'], 20, 20);
    await waitFor('the second replica relays after the first stopped', async () => received.length >= 340, 90_000);
    // A sentinel on the same key (so the same partition, after every earlier row in outbox order): once it has
    // arrived, any message published twice would have arrived before it.
    await append(second, ['d'], 40, 1);
    await waitFor(
      'the sentinel',
      async () => received.some((m) => m.key === 'd' && m.headers['x-seq'] === '40'),
      90_000,
    );

    expect(received).toHaveLength(341);
    expect(
      received.filter((m) => m.key === 'd').map((m) => (JSON.parse(m.value!.toString()) as { seq: number }).seq),
    ).toEqual(Array.from({ length: 41 }, (_, i) => i));
    expect(await unpublished(second)).toBe(0);
  }, 60_000);

  it('retention deletes the rows published longer ago than its period, never an unpublished or a recent one', async () => {
    const [service] = contexts as [INestApplicationContext];
    const db = service.get(DataSource);
    const published = async () =>
      (await db.query<{ n: number }[]>('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NOT NULL'))[0]!.n;
    const recent = await published();
    expect(recent).toBeGreaterThan(0);
    const old = (key: string, publishedAt: string) =>
      db.query(
        `INSERT INTO outbox (topic, message_key, value, created_at, published_at)
           VALUES ($1, $2, '{}', now() - interval '3 hours', $3::timestamptz)`,
        [topic, key, publishedAt],
      );
    await old('old-1', new Date(Date.now() - 2 * 3600_000).toISOString());
    await old('old-2', new Date(Date.now() - 2 * 3600_000).toISOString());

    // The statement itself, with an old unpublished row that only this transaction sees (the relay would publish a
    // committed one at once): every row published before the cut goes, the unpublished one stays whatever its age.
    const outbox = service.get(Outbox);
    await db
      .transaction(async (manager) => {
        await manager.query(
          `INSERT INTO outbox (topic, message_key, value, created_at)
             VALUES ($1, 'waiting', '{}', now() - interval '9 days')`,
          [topic],
        );
        expect(await outbox.purgePublished(manager, new Date(Date.now() + 86_400_000), 100_000)).toBe(recent + 2);
        const left = await manager.query<{ n: number }[]>(
          'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL',
        );
        expect(left[0]!.n).toBe(1);
        throw new Error('rolled back on purpose');
      })
      .catch((error: Error) => {
        if (error.message !== 'rolled back on purpose') throw error;
      });

    // The schedule's round, with the service's one hour of retention: the two old rows go, the recent ones stay (its
    // own once-a-minute round may have taken them first: the rows left are what counts).
    expect(await service.get(OutboxRetentionSchedule).execute()).toBeLessThanOrEqual(2);
    const keys = await db.query<{ message_key: string }[]>('SELECT message_key FROM outbox');
    expect(keys.map((row) => row.message_key)).not.toEqual(expect.arrayContaining(['old-1']));
    expect(keys.map((row) => row.message_key)).not.toEqual(expect.arrayContaining(['old-2']));
    expect(await published()).toBe(recent);
  });
});

describe('the outbox as a relay source, read ahead of its confirmations, on real Postgres', () => {
  const schema = `outbox_read_it_${uniqueSuffix()}`;
  const dataSource = new DataSource({
    type: 'postgres',
    url: requireEnv('DATABASE_URL'),
    poolSize: 3,
    extra: { options: `-c search_path=${schema}` },
  });
  const outbox = new Outbox();
  const message = (seq: number) => ({ topic: 't', key: 'k', value: String(seq), headers: {} });
  const values = (batch: { messages: readonly { value: string | null }[] }) =>
    batch.messages.map((entry) => entry.value);

  beforeAll(async () => {
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA ${schema}`);
    const runner = dataSource.createQueryRunner();
    await createOutboxTable(runner);
    await runner.release();
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await dataSource.destroy();
  });

  it('skips the rows of the batch in flight and still returns a lower position that committed after it was read', async () => {
    const reader = dataSource.createQueryRunner();
    const late = dataSource.createQueryRunner();
    try {
      await dataSource.transaction((manager) => outbox.append(manager, [message(1), message(2)]));
      await late.startTransaction();
      await outbox.append(late.manager, [message(3)]);
      await dataSource.transaction((manager) => outbox.append(manager, [message(4)]));

      const first = await outbox.read(reader, 10);
      await late.commitTransaction();
      const next = await outbox.read(reader, 10, first);

      expect(values(first)).toEqual(['1', '2', '4']);
      expect(values(next)).toEqual(['3']);
    } finally {
      await late.release();
      await reader.release();
    }
  });
});
