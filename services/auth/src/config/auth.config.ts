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

const schema = z.object({ ...httpEnv(3001), ...databaseEnv, ...authEnv, ...kafkaEnv }).transform((env) => ({
  http: httpConfig(env),
  auth: authConfig(env),
  database: databaseConfig(env, 'auth'),
  kafka: kafkaConfig(env, 'auth'),
}));

/** The auth service's whole configuration, validated once at boot. */
export type AuthConfig = ReturnType<typeof loadAuthConfig>;

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('auth', schema, env);
}
