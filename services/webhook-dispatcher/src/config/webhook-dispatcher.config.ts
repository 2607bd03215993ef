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

const schema = z.object({ ...httpEnv(3006), ...databaseEnv, ...authEnv, ...kafkaEnv }).transform((env) => ({
  http: httpConfig(env),
  auth: authConfig(env),
  database: databaseConfig(env, 'webhook_dispatcher'),
  kafka: kafkaConfig(env, 'webhook-dispatcher'),
}));

/** The webhook-dispatcher service's whole configuration, validated once at boot. */
export type WebhookDispatcherConfig = ReturnType<typeof loadWebhookDispatcherConfig>;

export function loadWebhookDispatcherConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('webhook-dispatcher', schema, env);
}
