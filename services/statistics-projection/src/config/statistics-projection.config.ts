import { z } from 'zod';
import {
  authConfig,
  authEnv,
  databaseConfig,
  databaseEnv,
  databaseEnvRules,
  httpConfig,
  httpEnv,
  eventBusConfig,
  eventBusEnv,
  eventBusEnvRules,
  loadConfig,
  rateLimitConfig,
  rateLimitEnv,
  readPoolConfig,
  readPoolEnv,
  readPoolEnvRules,
} from '@lx/platform';
import { projectionConfig, projectionEnv } from '@lx/messaging';

const schema = z
  .object({
    ...httpEnv(3004),
    ...databaseEnv,
    ...authEnv,
    ...eventBusEnv,
    ...rateLimitEnv,
    ...readPoolEnv,
    ...projectionEnv('statistics-projection'),
  })
  .superRefine(eventBusEnvRules)
  .superRefine(databaseEnvRules)
  .superRefine(readPoolEnvRules)
  .transform((env) => ({
    http: httpConfig(env),
    auth: authConfig(env),
    database: databaseConfig(env, 'statistics_projection'),
    eventBus: eventBusConfig(env, 'statistics-projection'),
    rateLimits: rateLimitConfig(env),
    readPool: readPoolConfig(env),
    projection: projectionConfig(env),
  }));

/** The statistics-projection service's whole configuration, validated once at boot. */
export type StatisticsProjectionConfig = ReturnType<typeof loadStatisticsProjectionConfig>;

export function loadStatisticsProjectionConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('statistics-projection', schema, env);
}
