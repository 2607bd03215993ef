import { Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { KAFKA_HEADERS, TOPICS, type TopicName } from '@lx/contracts';
import {
  createServiceApp,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
  MetricsRegistry,
} from '@lx/platform';
import {
  EventBusReadinessCheck,
  KafkaEventBus,
  MessagingModule,
  type ProjectedEvent,
  type Projection,
  ProjectionConsumer,
  projectionConsumerToken,
  type ProjectionLag,
  projectionLagToken,
  ProjectionModule,
  projectionReadinessToken,
  type ProjectionTransaction,
} from '../../../src';
import { requireEnv, testKafka, uniqueSuffix, waitFor } from '@lx/testing';

/** Records which projection applied which group: each of the two below consumes its own topic. */
abstract class RecordingProjection implements Projection {
  abstract readonly name: string;
  abstract readonly topics: readonly TopicName[];
  abstract readonly eventTypes: Projection['eventTypes'];

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    for (const { event } of events) {
      const data = event.data as { id: string };
      await transaction.query(`INSERT INTO applied (projection, group_id) VALUES ($1, $2)`, [this.name, data.id]);
    }
  }
}

class LocationGroupsProjection extends RecordingProjection {
  readonly name = 'location-groups';
  readonly topics = [TOPICS.locationGroupEvents.name];
  readonly eventTypes = ['LOCATION_GROUP_CREATED'] as const;
}

class AddressGroupsProjection extends RecordingProjection {
  readonly name = 'address-groups';
  readonly topics = [TOPICS.addressGroupEvents.name];
  readonly eventTypes = ['ADDRESS_GROUP_CREATED'] as const;
}

describe('ProjectionModule: several projections in one service', () => {
  const suffix = uniqueSuffix();
  const schema = `projection_module_it_${suffix}`;
  const groups = { locations: `it-groups-${suffix}`, addresses: `it-addresses-${suffix}` };
  const databaseUrl = requireEnv('DATABASE_URL');
  const pool = new Pool({ connectionString: databaseUrl, max: 2, options: `-c search_path=${schema}` });
  const bus = new KafkaEventBus(testKafka(`it-projection-module-${suffix}`));
  let app: NestFastifyApplication;
  const publish = (topic: TopicName, type: string, data: Record<string, unknown>) =>
    bus.publish(topic, [
      {
        key: String(data['id']),
        value: JSON.stringify({ id: randomUUID(), type, timestamp: new Date().toISOString(), source: 'it', data }),
        headers: { [KAFKA_HEADERS.aggregateVersion]: '1' },
      },
    ]);

  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(`CREATE TABLE consumer_offsets (group_id text, topic text, partition int, next_offset bigint,
      updated_at timestamptz DEFAULT now(), PRIMARY KEY (group_id, topic, partition))`);
    await pool.query(`CREATE TABLE applied (projection text, group_id uuid)`);
    // Each group starts at the end of its topic: only this test's messages are applied.
    for (const [groupId, topic] of [
      [groups.locations, TOPICS.locationGroupEvents.name],
      [groups.addresses, TOPICS.addressGroupEvents.name],
    ] as const) {
      for (const { partition, high } of await bus.partitionBounds(topic)) {
        await pool.query(
          `INSERT INTO consumer_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, $4)`,
          [groupId, topic, partition, high],
        );
      }
    }

    const projectionOptions = { batchSize: 100, concurrency: 1 };
    @Module({
      imports: [
        MetricsModule,
        DatabaseModule.forRoot({
          config: { url: databaseUrl, schema, poolSize: 4, migrateOnBoot: false },
          entities: [],
          migrations: [],
        }),
        MessagingModule.forRoot({ driver: 'kafka', kafka: testKafka(`it-projection-module-app-${suffix}`) }),
        ProjectionModule.register({
          name: 'location-groups',
          groupId: groups.locations,
          projection: LocationGroupsProjection,
          ...projectionOptions,
        }),
        ProjectionModule.register({
          name: 'address-groups',
          groupId: groups.addresses,
          projection: AddressGroupsProjection,
          ...projectionOptions,
        }),
        HealthModule.forRoot([
          DatabaseReadinessCheck,
          EventBusReadinessCheck,
          projectionReadinessToken('location-groups'),
          projectionReadinessToken('address-groups'),
        ]),
      ],
    })
    class TwoProjectionsModule {}
    app = await createServiceApp('it-projection-module', TwoProjectionsModule, {
      host: '127.0.0.1',
      port: 0,
      bodyLimitBytes: 1024,
      requestTimeoutMs: 300_000,
      logLevel: 'silent',
    });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await bus.deleteGroups([groups.locations, groups.addresses]);
    await bus.close();
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  });

  it('runs each projection under its own consumer group, and reports each in readiness', async () => {
    const locationGroupId = randomUUID();
    const addressGroupId = randomUUID();
    await publish(TOPICS.locationGroupEvents.name, 'LOCATION_GROUP_CREATED', {
      id: locationGroupId,
      name: 'Fibre north',
      type: 'OTHER',
    });
    await publish(TOPICS.addressGroupEvents.name, 'ADDRESS_GROUP_CREATED', {
      id: addressGroupId,
      name: 'Harbour towers',
      type: 'MDU_COMPLEX',
    });

    // Other test files publish to the same shared topics while this one runs, after the groups' start positions were
    // stored: only this test's two groups are looked at.
    const applied = async () =>
      (
        await pool.query<{ projection: string; group_id: string }>(
          `SELECT projection, group_id FROM applied WHERE group_id = ANY($1::uuid[]) ORDER BY projection`,
          [[locationGroupId, addressGroupId]],
        )
      ).rows;
    await waitFor('both projections applied their event', async () => (await applied()).length >= 2);
    expect(await applied()).toEqual([
      { projection: 'address-groups', group_id: addressGroupId },
      { projection: 'location-groups', group_id: locationGroupId },
    ]);

    expect(app.get<ProjectionConsumer>(projectionConsumerToken('location-groups')).groupId).toBe(groups.locations);
    expect(app.get<ProjectionConsumer>(projectionConsumerToken('address-groups')).groupId).toBe(groups.addresses);
    const ready = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(Object.keys(ready.json().info).sort()).toEqual(['address-groups', 'database', 'kafka', 'location-groups']);
  });

  it('reports the consumer lag of each projection per partition, from the offsets stored with the read model', async () => {
    const lagsOf = async (projection: string) => {
      await app.get<ProjectionLag>(projectionLagToken(projection)).execute();
      const metric = await app.get(MetricsRegistry).registry.getSingleMetric('projection_consumer_lag_messages')?.get();
      return (metric?.values ?? [])
        .filter(({ labels }) => labels['projection'] === projection)
        .map(({ labels, value }) => ({ topic: labels['topic'], partition: Number(labels['partition']), value }))
        .sort((a, b) => a.partition - b.partition);
    };
    const caughtUp = async (topic: TopicName) =>
      (await bus.partitionBounds(topic))
        .map(({ partition }) => ({ topic, partition, value: 0 }))
        .sort((a, b) => a.partition - b.partition);
    const groupsCaughtUp = await caughtUp(TOPICS.locationGroupEvents.name);
    await waitFor(
      'the projection to have applied everything',
      async () => JSON.stringify(await lagsOf('location-groups')) === JSON.stringify(groupsCaughtUp),
    );

    // Stopped, the projection falls behind by what is published to its topic: three events of one group (one key,
    // one partition). The other projection, on its own topic, does not.
    await app.get<ProjectionConsumer>(projectionConsumerToken('location-groups')).stop();
    const id = randomUUID();
    for (const name of ['a', 'b', 'c']) {
      await publish(TOPICS.locationGroupEvents.name, 'LOCATION_GROUP_CREATED', { id, name, type: 'OTHER' });
    }
    const behind = (await lagsOf('location-groups')).filter(({ value }) => value !== 0);
    expect(behind).toEqual([{ topic: TOPICS.locationGroupEvents.name, partition: expect.any(Number), value: 3 }]);
    expect(await lagsOf('address-groups')).toEqual(await caughtUp(TOPICS.addressGroupEvents.name));
  });
});
