import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE, parseDuration } from '@lx/domain';
import {
  ADDRESS_KINDS,
  type AddressKind,
  authConfig,
  authEnv,
  consumerGroupEnv,
  databaseConfig,
  databaseEnv,
  readPoolConfig,
  readPoolEnv,
  readPoolEnvRules,
  databaseEnvRules,
  encryptionKey,
  httpConfig,
  httpEnv,
  eventBusConfig,
  eventBusEnv,
  eventBusEnvRules,
  loadConfig,
  outboxConfig,
  outboxEnv,
} from '@lx/platform';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const DAY_MS = 86_400_000;

/** A comma-separated list of durations (`5s,5m,30m,2h`): the delays before the second, third, … attempt. */
const schedule = z
  .string()
  .transform((text, ctx) => {
    const delays = text.split(',').map((part) => parseDuration(part));
    if (delays.some((delay) => delay === undefined || delay > 7 * DAY_MS)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be durations such as 5s,5m,2h (each at most 7d)' });
      return z.NEVER;
    }
    return delays as number[];
  })
  .refine((delays) => delays.length <= 30, { message: 'at most 30 retries' });

const duration = (max: number) =>
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined || ms > max) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a duration such as 500ms, 10s, 24h' });
      return z.NEVER;
    }
    return ms;
  });

const addressKinds = z
  .string()
  .transform((text) => text.split(',').map((kind) => kind.trim()))
  .transform((kinds) => kinds.filter((kind) => kind !== ''))
  .refine((kinds) => kinds.every((kind) => (ADDRESS_KINDS as readonly string[]).includes(kind)), {
    message: `must be a comma-separated list of ${ADDRESS_KINDS.join(', ')}`,
  })
  .transform((kinds) => kinds as AddressKind[]);

const webhookEnv = {
  /** Opens the webhook secrets sealed into CLIENT_* events; the same key as auth's. */
  WEBHOOK_SECRET_TRANSPORT_KEY: encryptionKey,
  /** Kafka consumer group of the intake of export and location events. */
  WEBHOOK_CONSUMER_GROUP: consumerGroupEnv('webhook-dispatcher'),
  WEBHOOK_RETRY_SCHEDULE: schedule.default(DEFAULT_RETRY_SCHEDULE.delaysMs.map((ms) => `${ms / 1000}s`).join(',')),
  WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(0.9).default(DEFAULT_RETRY_SCHEDULE.jitter),
  WEBHOOK_CONNECT_TIMEOUT: duration(60_000).default('5s'),
  WEBHOOK_RESPONSE_TIMEOUT: duration(300_000).default('15s'),
  WEBHOOK_SECRET_ROTATION_GRACE: duration(30 * DAY_MS).default('24h'),
  WEBHOOK_ENDPOINT_CONCURRENCY: int(1, 256).default(16),
  WEBHOOK_MAX_IN_FLIGHT: int(1, 10_000).default(512),
  WEBHOOK_POLL_INTERVAL: duration(60_000).default('500ms'),
  WEBHOOK_CHECKPOINT_INTERVAL: duration(60_000).default('1s'),
  WEBHOOK_REBALANCE_INTERVAL: duration(300_000).default('2s'),
  WEBHOOK_ENDPOINT_BACKOFF_AFTER: int(1, 10_000).default(16),
  WEBHOOK_WINDOW_MB: int(1, 4_096).default(32),
  WEBHOOK_LOG_RETENTION: duration(366 * DAY_MS).default('7d'),
  WEBHOOK_RECORD_RETENTION: duration(366 * DAY_MS).default('30d'),
  WEBHOOK_ALLOWED_ADDRESS_KINDS: addressKinds.default(''),
  WEBHOOK_INTAKE_CONCURRENCY: int(1, 64).default(6),
};

const schema = z
  .object({ ...httpEnv(3006), ...databaseEnv, ...readPoolEnv, ...authEnv, ...eventBusEnv, ...outboxEnv, ...webhookEnv })
  .superRefine(eventBusEnvRules)
  .superRefine(databaseEnvRules)
  .superRefine(readPoolEnvRules)
  .transform((env) => ({
    http: httpConfig(env),
    auth: authConfig(env),
    database: databaseConfig(env, 'webhook_dispatcher'),
    readPool: readPoolConfig(env),
    eventBus: eventBusConfig(env, 'webhook-dispatcher'),
    outbox: outboxConfig(env),
    /** Text, not a Buffer: the frozen configuration cannot hold typed arrays. */
    secretTransportKeyBase64: env.WEBHOOK_SECRET_TRANSPORT_KEY,
    intake: {
      groupId: env.WEBHOOK_CONSUMER_GROUP,
      /** Partitions of the event topics appended to the log at the same time. */
      concurrency: env.WEBHOOK_INTAKE_CONCURRENCY,
    },
    delivery: {
      schedule: { delaysMs: env.WEBHOOK_RETRY_SCHEDULE, jitter: env.WEBHOOK_RETRY_JITTER },
      connectTimeoutMs: env.WEBHOOK_CONNECT_TIMEOUT,
      /** From the request's start to the end of the reply's first KB. */
      responseTimeoutMs: env.WEBHOOK_RESPONSE_TIMEOUT,
      /** How long after a secret rotation the previous secret signs too. */
      rotationGraceMs: env.WEBHOOK_SECRET_ROTATION_GRACE,
      /** Attempts in flight per endpoint (client): a slow endpoint uses up only its own. */
      endpointConcurrency: env.WEBHOOK_ENDPOINT_CONCURRENCY,
      /** Attempts in flight in this replica, over all endpoints. */
      maxInFlight: env.WEBHOOK_MAX_IN_FLIGHT,
      /**
       * Longest wait for due retries and subscription changes when idle (appends to the log, redrives and finished
       * attempts wake the dispatcher at once).
       */
      pollIntervalMs: env.WEBHOOK_POLL_INTERVAL,
      /** How often the cursors' positions are written (with the records of failed attempts). */
      checkpointIntervalMs: env.WEBHOOK_CHECKPOINT_INTERVAL,
      /** How often a replica takes or hands back endpoints to hold its fair share. */
      rebalanceIntervalMs: env.WEBHOOK_REBALANCE_INTERVAL,
      /** Retryable failures in a row after which an endpoint's cursor waits for the endpoint to answer again. */
      backoffAfter: env.WEBHOOK_ENDPOINT_BACKOFF_AFTER,
      /** Memory for the newest part of the notification log, shared by the endpoints that keep up. */
      windowBytes: env.WEBHOOK_WINDOW_MB * 1024 * 1024,
      /** How long the log keeps a message every endpoint has passed (the RSPs' list of recent deliveries). */
      logRetentionMs: env.WEBHOOK_LOG_RETENTION,
      /** How long the record of a message that failed once is kept after it ended (DELIVERED, FAILED, DEAD). */
      recordRetentionMs: env.WEBHOOK_RECORD_RETENTION,
      /** Address kinds a webhook may reach besides public addresses (SSRF guard); the local stack allows loopback. */
      allowedAddressKinds: env.WEBHOOK_ALLOWED_ADDRESS_KINDS,
    },
  }));

/** The webhook-dispatcher service's whole configuration, validated once at boot. */
export type WebhookDispatcherConfig = ReturnType<typeof loadWebhookDispatcherConfig>;

/** Injection token of the frozen WebhookDispatcherConfig. */
export const WEBHOOK_DISPATCHER_CONFIG = Symbol('WEBHOOK_DISPATCHER_CONFIG');

export function loadWebhookDispatcherConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('webhook-dispatcher', schema, env);
}
