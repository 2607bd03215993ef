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
} from '@lx/platform';

const writeSideEnv = {
  EVENT_SOURCE: z.string().min(1).default('location-command'),
  IMPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(2_000),
  IMPORT_MAX_ROW_BYTES: z.coerce.number().int().min(1_024).max(16_777_216).default(1_048_576),
  IMPORT_MAX_REPORTED_REJECTIONS: z.coerce.number().int().min(0).max(100_000).default(1_000),
  IMPORT_MAX_RETIRE_SHARE: z.coerce.number().min(0).max(1).default(0.1),
  OUTBOX_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(1_000),
  OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(1).max(60_000).default(50),
  OUTBOX_LINGER_MS: z.coerce.number().int().min(0).max(1_000).default(10),
  RELAY_THREAD: z.enum(['worker', 'main']).default('worker'),
  WATERMARK_LOCK_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000),
  WATERMARK_PUBLISH_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(30_000),
};

/**
 * location-command's request deadline: an import's body is read as the import runs (back-pressure), so receiving it
 * takes as long as importing it. bench:import measured 3,900 to 11,300 rows/s on 2 cores (docs/benchmarks.md): four
 * hours hold about 50 million rows at the slowest.
 */
const IMPORT_REQUEST_TIMEOUT_MS = 14_400_000;

const schema = z
  .object({ ...httpEnv(3002, IMPORT_REQUEST_TIMEOUT_MS), ...databaseEnv, ...authEnv, ...eventBusEnv, ...writeSideEnv })
  .superRefine(eventBusEnvRules)
  .superRefine(databaseEnvRules)
  .transform((env) => ({
    http: httpConfig(env),
    auth: authConfig(env),
    database: databaseConfig(env, 'location_command'),
    eventBus: eventBusConfig(env, 'location-command'),
    events: {
      /** `source` of every event envelope: the name of the emitting system (OAF-100). */
      source: env.EVENT_SOURCE,
    },
    imports: {
      /** Rows decided and written per transaction. */
      batchSize: env.IMPORT_BATCH_SIZE,
      /** Longest accepted NDJSON line or CSV record; longer ones are rejected without being buffered. */
      maxRowBytes: env.IMPORT_MAX_ROW_BYTES,
      /** Rejections listed one by one in an import report; further ones are only counted, so memory stays flat. */
      maxReportedRejections: env.IMPORT_MAX_REPORTED_REJECTIONS,
      /**
       * The largest share of the locations in service a full-replace import retires without the request confirming
       * the number: a truncated file would otherwise retire the rest of the network.
       */
      maxRetireShare: env.IMPORT_MAX_RETIRE_SHARE,
    },
    /** The relay of the event log (the service's outbox): events per round, longest idle wait, linger. */
    outbox: {
      batchSize: env.OUTBOX_BATCH_SIZE,
      pollIntervalMs: env.OUTBOX_POLL_INTERVAL_MS,
      lingerMs: env.OUTBOX_LINGER_MS,
    },
    /**
     * Where the relay runs: a worker thread of its own (it then takes no time from requests and imports), or the
     * main thread (one thread fewer, for a small deployment or a debugger).
     */
    relayThread: env.RELAY_THREAD,
    watermark: {
      /** Longest wait of a fence for the transactions in flight when it was stored to end (writes never wait). */
      lockTimeoutMs: env.WATERMARK_LOCK_TIMEOUT_MS,
      /** Longest wait of a fence, once those have ended, for the relay to publish the event log up to it. */
      publishTimeoutMs: env.WATERMARK_PUBLISH_TIMEOUT_MS,
    },
  }));

/** The location-command service's whole configuration, validated once at boot. */
export type LocationCommandConfig = ReturnType<typeof loadLocationCommandConfig>;

export function loadLocationCommandConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('location-command', schema, env);
}
