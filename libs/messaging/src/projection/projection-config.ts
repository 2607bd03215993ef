import { z } from 'zod';
import { consumerGroupEnv } from '@lx/platform';

/**
 * The settings of a service that runs a projection, in its configuration schema: `...projectionEnv('<service>')`
 * (the consumer group defaults to the service's name), turned into ProjectionModule's options by projectionConfig.
 */
export const projectionEnv = (defaultGroup: string) => ({
  PROJECTION_GROUP_ID: consumerGroupEnv(defaultGroup),
  PROJECTION_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  PROJECTION_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(3),
});

export function projectionConfig(env: {
  PROJECTION_GROUP_ID: string;
  PROJECTION_BATCH_SIZE: number;
  PROJECTION_CONCURRENCY: number;
}) {
  return {
    /** Consumer group of the projection; its offsets are stored beside the tables it feeds. */
    groupId: env.PROJECTION_GROUP_ID,
    /** Most events applied per transaction. */
    batchSize: env.PROJECTION_BATCH_SIZE,
    /** Partitions applied at the same time, each in its own transaction. */
    concurrency: env.PROJECTION_CONCURRENCY,
  };
}
