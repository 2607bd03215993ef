import { z } from 'zod';
import {
  authConfig,
  authEnv,
  consumerGroupEnv,
  databaseConfig,
  databaseEnv,
  databaseEnvRules,
  httpConfig,
  httpEnv,
  kafkaConfig,
  kafkaEnv,
  kafkaEnvRules,
  loadConfig,
  rateLimitConfig,
  rateLimitEnv,
  readPoolConfig,
  readPoolEnv,
  readPoolEnvRules,
} from '@lx/platform';

const projectionEnv = {
  PROJECTION_GROUP_ID: consumerGroupEnv('statistics-projection'),
  PROJECTION_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  PROJECTION_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(3),
};

const schema = z
  .object({
    ...httpEnv(3004),
    ...databaseEnv,
    ...authEnv,
    ...kafkaEnv,
    ...rateLimitEnv,
    ...readPoolEnv,
    ...projectionEnv,
  })
  .superRefine(kafkaEnvRules)
  .superRefine(databaseEnvRules)
  .superRefine(readPoolEnvRules)
  .transform((env) => ({
    http: httpConfig(env),
    auth: authConfig(env),
    database: databaseConfig(env, 'statistics_projection'),
    kafka: kafkaConfig(env, 'statistics-projection'),
    rateLimits: rateLimitConfig(env),
    readPool: readPoolConfig(env),
    projection: {
      /** Consumer group of the facts; its offsets are stored beside them. */
      groupId: env.PROJECTION_GROUP_ID,
      /** Most events applied per transaction. */
      batchSize: env.PROJECTION_BATCH_SIZE,
      /** Partitions applied at the same time, each in its own transaction. */
      concurrency: env.PROJECTION_CONCURRENCY,
    },
  }));

/** The statistics-projection service's whole configuration, validated once at boot. */
export type StatisticsProjectionConfig = ReturnType<typeof loadStatisticsProjectionConfig>;

export function loadStatisticsProjectionConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('statistics-projection', schema, env);
}
