import { z } from 'zod';
import {
  authConfig,
  authEnv,
  databaseConfig,
  databaseEnv,
  readPoolConfig,
  readPoolEnv,
  readPoolEnvRules,
  databaseEnvRules,
  httpConfig,
  httpEnv,
  httpUrlEnv,
  eventBusConfig,
  eventBusEnv,
  eventBusEnvRules,
  loadConfig,
  outboxConfig,
  outboxEnv,
  serviceClientConfig,
  serviceClientEnv,
  storageConfig,
  storageEnv,
  storageEnvRules,
} from '@lx/platform';

/** S3 caps a presigned URL's lifetime at seven days. */
const MAX_LINK_SECONDS = 7 * 24 * 3600;

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const exportEnv = {
  /** Internal base URLs of the services an export reads from. */
  LOCATION_QUERY_URL: httpUrlEnv,
  LOCATION_COMMAND_URL: httpUrlEnv,
  STATISTICS_URL: httpUrlEnv,
  EXPORT_MAX_LOCATIONS: int(1, 100_000_000).default(5_000_000),
  EXPORT_RATE_LIMIT: int(1, 100_000).default(20),
  EXPORT_RATE_WINDOW_SECONDS: int(1, 86_400).default(3600),
  EXPORT_MAX_UNFINISHED: int(1, 1000).default(3),
  EXPORT_LINK_TTL_SECONDS: int(1, MAX_LINK_SECONDS).default(86_400),
  EXPORT_RETENTION_SECONDS: int(60, 365 * 86_400).default(7 * 86_400),
  EXPORT_MAX_ATTEMPTS: int(1, 100).default(3),
  EXPORT_LEASE_SECONDS: int(5, 3600).default(60),
  EXPORT_RETRY_DELAY_SECONDS: int(0, 3600).default(5),
  EXPORT_CONCURRENCY: int(1, 32).default(2),
  EXPORT_POLL_INTERVAL_MS: int(50, 60_000).default(1000),
  EXPORT_PEER_TIMEOUT_MS: int(100, 600_000).default(60_000),
};

const schema = z
  .object({
    ...httpEnv(3005),
    ...databaseEnv,
    ...readPoolEnv,
    ...authEnv,
    ...eventBusEnv,
    ...outboxEnv,
    ...storageEnv,
    ...serviceClientEnv,
    ...exportEnv,
  })
  .superRefine(eventBusEnvRules)
  .superRefine(storageEnvRules)
  .superRefine(databaseEnvRules)
  .superRefine(readPoolEnvRules)
  .transform((env) => ({
    http: httpConfig(env),
    auth: authConfig(env),
    database: databaseConfig(env, 'export_worker'),
    readPool: readPoolConfig(env),
    eventBus: eventBusConfig(env, 'export-worker'),
    outbox: outboxConfig(env),
    storage: storageConfig(env),
    serviceClient: serviceClientConfig(env),
    peers: {
      locationQueryUrl: env.LOCATION_QUERY_URL,
      locationCommandUrl: env.LOCATION_COMMAND_URL,
      statisticsUrl: env.STATISTICS_URL,
      /** Longest wait for a peer's reply (the snapshot waits for the read model to catch up first). */
      timeoutMs: env.EXPORT_PEER_TIMEOUT_MS,
    },
    limits: {
      /** Most locations one export may hold; more is 400 EXPORT_SIZE_EXCEEDED at creation. */
      maxLocations: env.EXPORT_MAX_LOCATIONS,
      /** Export requests a client may make per window (429 with Retry-After beyond). */
      rateLimit: env.EXPORT_RATE_LIMIT,
      rateWindowSeconds: env.EXPORT_RATE_WINDOW_SECONDS,
      /** A client's PENDING exports at one time (429 beyond). */
      maxUnfinished: env.EXPORT_MAX_UNFINISHED,
    },
    files: {
      /** Lifetime of a download link (the presigned URL's real expiry). */
      linkTtlSeconds: env.EXPORT_LINK_TTL_SECONDS,
      /** How long a file is kept after generation; then it is deleted and new links are refused. */
      retentionSeconds: env.EXPORT_RETENTION_SECONDS,
    },
    jobs: {
      /** Attempts per export before it is FAILED with EXPORT_GENERATION_FAILED. */
      maxAttempts: env.EXPORT_MAX_ATTEMPTS,
      /** A claimed export is another replica's to take over when its lease lapses (renewed while generating). */
      leaseSeconds: env.EXPORT_LEASE_SECONDS,
      /** First delay before a failed attempt is retried; doubles per attempt. */
      retryDelaySeconds: env.EXPORT_RETRY_DELAY_SECONDS,
      /** Exports generated at the same time by one replica. */
      concurrency: env.EXPORT_CONCURRENCY,
      /** Longest wait for new work when idle (a request to this replica wakes it at once). */
      pollIntervalMs: env.EXPORT_POLL_INTERVAL_MS,
    },
  }));

/** The export-worker service's whole configuration, validated once at boot. */
export type ExportWorkerConfig = ReturnType<typeof loadExportWorkerConfig>;

/** Injection token of the frozen ExportWorkerConfig. */
export const EXPORT_WORKER_CONFIG = Symbol('EXPORT_WORKER_CONFIG');

export function loadExportWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('export-worker', schema, env);
}
