import { z } from 'zod';
import { CHANGE_FEED } from '@lx/contracts';
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
  rateLimitConfig,
  rateLimitEnv,
  readPoolConfig,
  readPoolEnv,
  readPoolEnvRules,
} from '@lx/platform';
import { projectionConfig, projectionEnv } from '@lx/messaging';

const readSideEnv = {
  ...projectionEnv('location-query'),
  SNAPSHOT_FETCH_ROWS: z.coerce.number().int().min(1).max(100_000).default(1_000),
  SNAPSHOT_CATCH_UP_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(60_000),
  CHANGE_FEED_RETENTION_DAYS: z.coerce.number().int().min(CHANGE_FEED.minRetentionDays).max(3_650).default(7),
};

const schema = z
  .object({
    ...httpEnv(3003),
    ...databaseEnv,
    ...authEnv,
    ...eventBusEnv,
    ...rateLimitEnv,
    ...readPoolEnv,
    ...readSideEnv,
  })
  .superRefine(eventBusEnvRules)
  .superRefine(databaseEnvRules)
  .superRefine(readPoolEnvRules)
  .transform((env) => ({
    http: httpConfig(env),
    auth: authConfig(env),
    database: databaseConfig(env, 'location_query'),
    eventBus: eventBusConfig(env, 'location-query'),
    rateLimits: rateLimitConfig(env),
    readPool: readPoolConfig(env),
    projection: projectionConfig(env),
    changeFeed: {
      /** Consumer group of the change feed's projection: the read model's, with `-changes` after it. */
      groupId: `${env.PROJECTION_GROUP_ID}-changes`,
      /** Changes that happened longer ago than this many days are purged. */
      retentionDays: env.CHANGE_FEED_RETENTION_DAYS,
    },
    snapshot: {
      /** Rows fetched from the snapshot cursor per round: the stream's memory bound. */
      fetchRows: env.SNAPSHOT_FETCH_ROWS,
      /** Longest wait of a `catchUp` snapshot for the read model to reach the location topic's end offsets. */
      catchUpTimeoutMs: env.SNAPSHOT_CATCH_UP_TIMEOUT_MS,
      /** The read model's consumer group, whose stored offsets say how far it has applied the topic. */
      projectionGroupId: env.PROJECTION_GROUP_ID,
    },
  }));

/** The location-query service's whole configuration, validated once at boot. */
export type LocationQueryConfig = ReturnType<typeof loadLocationQueryConfig>;

export function loadLocationQueryConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('location-query', schema, env);
}
