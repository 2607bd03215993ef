import { z } from 'zod';
import { databaseConfig, databaseEnv, httpConfig, httpEnv, kafkaConfig, kafkaEnv, loadConfig } from '@lx/platform';

const schema = z.object({ ...httpEnv(3002), ...databaseEnv, ...kafkaEnv }).transform((env) => ({
  http: httpConfig(env),
  database: databaseConfig(env, 'location_command'),
  kafka: kafkaConfig(env, 'location-command'),
}));

/** The location-command service's whole configuration, validated once at boot. */
export type LocationCommandConfig = ReturnType<typeof loadLocationCommandConfig>;

export function loadLocationCommandConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('location-command', schema, env);
}
