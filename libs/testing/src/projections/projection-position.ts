import { Client } from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';
import { prefixedName } from '@lx/contracts';
import { type DatabaseConfig, dataSourceOptions, migrateSchema, tlsOptionsOf } from '@lx/platform';
import { requireEnv, uniqueSuffix } from '../infra-env';
import { type PrefixedKafka, testKafkaClient } from '../kafka-topics';

/**
 * Migrates `schema` and stores, for `groupId`, the current end of each topic as the read model's position, so a
 * projection started afterwards applies only what is published from now on. The topics are shared with the other
 * tests of the file; reading them from offset 0 is what the replay tests do, not every test.
 */
export async function positionAtLogEnd(options: {
  databaseUrl: string;
  ssl?: DatabaseConfig['ssl'];
  kafka: PrefixedKafka;
  schema: string;
  groupId: string;
  topics: readonly string[];
  migrations: (new () => MigrationInterface)[];
}): Promise<void> {
  await migrateTestSchema(options);
  await storeLogEndAsPosition(options);
}

/**
 * Creates `schema` with the real tables of a service (its migrations), for tests that call a projection's `apply`
 * directly in their own transactions, with no consumer and no topic.
 */
export async function migrateTestSchema(options: {
  databaseUrl: string;
  ssl?: DatabaseConfig['ssl'];
  schema: string;
  migrations: (new () => MigrationInterface)[];
}): Promise<void> {
  const dataSource = new DataSource(
    dataSourceOptions({
      config: { url: options.databaseUrl, schema: options.schema, poolSize: 2, migrateOnBoot: true, ssl: options.ssl },
      entities: [],
      migrations: options.migrations,
    }),
  );
  await dataSource.initialize();
  try {
    await migrateSchema(dataSource, options.schema);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Stores the current end of each topic (declared names, under the prefix of `kafka`) as `groupId`'s position in
 * `schema`, whose consumer_offsets table exists.
 */
export async function storeLogEndAsPosition(options: {
  databaseUrl: string;
  ssl?: DatabaseConfig['ssl'];
  kafka: PrefixedKafka;
  schema: string;
  groupId: string;
  topics: readonly string[];
}): Promise<void> {
  const admin = testKafkaClient(`it-position-${options.groupId}`, options.kafka).admin();
  await admin.connect();
  const db = new Client({
    connectionString: options.databaseUrl,
    options: `-c search_path=${options.schema}`,
    ...(options.ssl !== undefined && { ssl: tlsOptionsOf(options.ssl) }),
  });
  await db.connect();
  try {
    for (const topic of options.topics) {
      for (const { partition, high } of await admin.fetchTopicOffsets(prefixedName(options.kafka.topicPrefix, topic))) {
        await db.query(
          `INSERT INTO consumer_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, $4)
           ON CONFLICT (group_id, topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset`,
          [options.groupId, topic, partition, high],
        );
      }
    }
  } finally {
    await db.end();
    await admin.disconnect();
  }
}

/**
 * A schema of the test file's own, migrated with the service's migrations before its tests and dropped after them,
 * and a client on it (`connect` makes further ones, for concurrent transactions). Call at the top of a describe.
 */
export function usePrivateSchema(
  prefix: string,
  migrations: (new () => MigrationInterface)[],
): { schema: string; db: Client; connect: () => Client } {
  const schema = `${prefix}_${uniqueSuffix()}`;
  const databaseUrl = requireEnv('DATABASE_URL');
  const connect = () => new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  const db = connect();

  beforeAll(async () => {
    await migrateTestSchema({ databaseUrl, schema, migrations });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.end();
  });

  return { schema, db, connect };
}

/**
 * A migration's test on a private schema as the release before it left it (every migration before it): `up()` runs
 * it (and returns the names of the migrations it ran), `down()` reverts it, each through a data source of its own as
 * the service's migrate command would.
 */
export function useSchemaBefore(
  prefix: string,
  migrations: (new () => MigrationInterface)[],
  migration: new () => MigrationInterface,
): { schema: string; db: Client; up: () => Promise<string[]>; down: () => Promise<void> } {
  const databaseUrl = requireEnv('DATABASE_URL');
  const index = migrations.indexOf(migration);
  if (index < 0) throw new Error(`useSchemaBefore: ${migration.name} is not among the migrations`);
  const { schema, db } = usePrivateSchema(prefix, migrations.slice(0, index));
  const dataSource = () =>
    new DataSource(
      dataSourceOptions({
        config: { url: databaseUrl, schema, poolSize: 2, migrateOnBoot: false },
        entities: [],
        // Up to this one: the later migrations have tests of their own.
        migrations: migrations.slice(0, index + 1),
      }),
    );
  const up = async () => {
    const source = dataSource();
    await source.initialize();
    try {
      return await migrateSchema(source, schema);
    } finally {
      await source.destroy();
    }
  };
  const down = async () => {
    const source = dataSource();
    await source.initialize();
    const runner = source.createQueryRunner();
    try {
      await runner.query(`SET search_path TO ${schema}`);
      await new migration().down(runner);
    } finally {
      await runner.release();
      await source.destroy();
    }
  };
  return { schema, db, up, down };
}
