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

const schema = z.object({ ...httpEnv(3002), ...databaseEnv, ...authEnv, ...kafkaEnv }).transform((env) => ({
  http: httpConfig(env),
  auth: authConfig(env),
  database: databaseConfig(env, 'location_command'),
  kafka: kafkaConfig(env, 'location-command'),
}));

/** The location-command service's whole configuration, validated once at boot. */
export type LocationCommandConfig = ReturnType<typeof loadLocationCommandConfig>;

export function loadLocationCommandConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('location-command', schema, env);
}
