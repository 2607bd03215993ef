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

const schema = z.object({ ...httpEnv(3003), ...databaseEnv, ...authEnv, ...kafkaEnv }).transform((env) => ({
  http: httpConfig(env),
  auth: authConfig(env),
  database: databaseConfig(env, 'location_query'),
  kafka: kafkaConfig(env, 'location-query'),
}));

/** The location-query service's whole configuration, validated once at boot. */
export type LocationQueryConfig = ReturnType<typeof loadLocationQueryConfig>;

export function loadLocationQueryConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('location-query', schema, env);
}
