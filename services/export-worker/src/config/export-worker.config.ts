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
  storageConfig,
  storageEnv,
} from '@lx/platform';

const schema = z
  .object({ ...httpEnv(3005), ...databaseEnv, ...authEnv, ...kafkaEnv, ...storageEnv })
  .transform((env) => ({
    http: httpConfig(env),
    auth: authConfig(env),
    database: databaseConfig(env, 'export_worker'),
    kafka: kafkaConfig(env, 'export-worker'),
    storage: storageConfig(env),
  }));

/** The export-worker service's whole configuration, validated once at boot. */
export type ExportWorkerConfig = ReturnType<typeof loadExportWorkerConfig>;

export function loadExportWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('export-worker', schema, env);
}
