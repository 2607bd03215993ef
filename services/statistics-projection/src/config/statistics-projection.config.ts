import { z } from 'zod';
import {
  authConfig,
  authEnv,
  databaseConfig,
  databaseEnv,
  httpConfig,
  httpEnv,
  kafkaConfig,
  kafkaEnv,
  loadConfig,
} from '@lx/platform';

const schema = z.object({ ...httpEnv(3004), ...databaseEnv, ...authEnv, ...kafkaEnv }).transform((env) => ({
  http: httpConfig(env),
  auth: authConfig(env),
  database: databaseConfig(env, 'statistics_projection'),
  kafka: kafkaConfig(env, 'statistics-projection'),
}));

/** The statistics-projection service's whole configuration, validated once at boot. */
export type StatisticsProjectionConfig = ReturnType<typeof loadStatisticsProjectionConfig>;

export function loadStatisticsProjectionConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('statistics-projection', schema, env);
}
