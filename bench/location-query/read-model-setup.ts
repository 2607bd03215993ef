import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { TOPICS } from '@lx/contracts';
import { KafkaEventBus } from '@lx/messaging';
import { loadInfraEnv, REPO_ROOT, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics } from '../../libs/testing/src/kafka-topics';
import { startTestTokenIssuer, type TestTokenIssuer } from '../../libs/testing/src/token-issuer';
import { copyReadModel, log, positionAtLogEnd, readModelRows, run } from './bench-support';

/** location-query's build, as the benchmarks run it (from dist/, as in production). */
export const LOCATION_QUERY_DIST = join(REPO_ROOT, 'dist/services/location-query/services/location-query/src');

/** A read model of the benchmark's own, loaded and ready for location-query processes started with `env`. */
export interface ReadModelBench {
  /** The environment of a location-query on the schema, the run's own topics and the token issuer. */
  env: NodeJS.ProcessEnv;
  /** On the schema. */
  db: Client;
  issuer: TestTokenIssuer;
  /** Every tenth location id (readModelRows' sample). */
  ids: string[];
  /** Drops the schema and the topics (unless `keep`), closes the clients. */
  close(keep?: boolean): Promise<void>;
}

/**
 * Setup of the read-side benchmarks (not timed): a fresh schema migrated by location-query's own CLI, its projection
 * positioned at the end of the run's own topics (a topic prefix: nothing the run publishes reaches a running stack),
 * then `rows` realistic locations written straight into the read model with COPY (psql \copy) and analysed. COPY
 * instead of replaying events: it loads a million rows in well under a minute, and the read path does not care how
 * the rows got there.
 */
export async function startReadModelBench(name: string, rows: number): Promise<ReadModelBench> {
  loadInfraEnv();
  const databaseUrl = requireEnv('DATABASE_URL');
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const suffix = `${Date.now().toString(36)}`;
  const schema = `bench_${name}_${suffix}`;
  const groupId = `bench-${name}-${suffix}`;
  const topics = await createPrivateTopics(brokers, 'lxbench');
  const issuer = await startTestTokenIssuer();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...issuer.env,
    ...topics.env,
    DATABASE_SCHEMA: schema,
    PROJECTION_GROUP_ID: groupId,
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
  };
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  const bus = new KafkaEventBus(topics.kafka(`bench-${suffix}`));
  const close = async (keep = false) => {
    if (!keep) await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.end().catch(() => undefined);
    await bus.close();
    await issuer.close();
    if (!keep) await topics.remove();
  };
  try {
    log(`migrating ${schema}`);
    await run([join(LOCATION_QUERY_DIST, 'cli.js'), 'migrate'], env);
    await db.connect();
    const readModelTopics = [
      TOPICS.locationEvents.name,
      TOPICS.locationGroupEvents.name,
      TOPICS.addressGroupEvents.name,
    ];
    const ends = await Promise.all(readModelTopics.map((topic) => bus.partitionBounds(topic)));
    await positionAtLogEnd(db, groupId, ends.flat());

    log(`loading ${rows.toLocaleString('en-US')} locations with COPY`);
    const loadStarted = performance.now();
    const ids: string[] = [];
    const groups = Array.from({ length: 500 }, () => randomUUID());
    const mdus = Array.from({ length: 20_000 }, () => randomUUID());
    await copyReadModel(databaseUrl, schema, readModelRows(rows, { groups, mdus, sample: ids }));
    await db.query('VACUUM ANALYZE locations');
    log(`loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
    return { env, db, issuer, ids, close };
  } catch (error) {
    await close();
    throw error;
  }
}
