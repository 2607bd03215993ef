import { DataSource } from 'typeorm';
import { ALL_TOPICS } from '@lx/contracts';
import { KafkaEventBus, pgPoolOf, rebuildProjection, type RebuildProgress, type RebuildResult } from '@lx/messaging';
import { dataSourceOptions, migrateSchema } from '@lx/platform';
import type { LocationQueryConfig } from '../config/location-query.config';
import { MIGRATIONS } from '../database/migrations';
import { LocationReadModelProjection } from '../read-model/location-read-model.projection';
import { LIVE_TABLES, REBUILT_TABLES } from '../read-model/read-model-tables';

export interface ReplayOptions {
  timeoutMs?: number;
  onProgress?: (progress: RebuildProgress) => void;
}

/**
 * Rebuilds the location read model from offset 0 into fresh tables and switches the service over to them once they
 * have caught up (see rebuildProjection); the running service keeps answering from the old tables meanwhile.
 */
export async function replayReadModel(
  config: LocationQueryConfig,
  options: ReplayOptions = {},
): Promise<RebuildResult> {
  const dataSource = new DataSource(
    dataSourceOptions({
      config: { ...config.database, poolSize: config.projection.concurrency + 3 },
      entities: [],
      migrations: MIGRATIONS,
    }),
  );
  await dataSource.initialize();
  const bus = new KafkaEventBus({ ...config.kafka, clientId: `${config.kafka.clientId}-replay` });
  try {
    await migrateSchema(dataSource, config.database.schema);
    await bus.ensureTopics(ALL_TOPICS);
    return await rebuildProjection({
      pool: pgPoolOf(dataSource),
      bus,
      liveGroupId: config.projection.groupId,
      tables: REBUILT_TABLES,
      projectionFor: (tables) =>
        new LocationReadModelProjection({
          locations: tables[LIVE_TABLES.locations]!,
          locationGroups: tables[LIVE_TABLES.locationGroups]!,
          addressGroups: tables[LIVE_TABLES.addressGroups]!,
        }),
      batchSize: config.projection.batchSize,
      concurrency: config.projection.concurrency,
      timeoutMs: options.timeoutMs,
      onProgress: options.onProgress,
    });
  } finally {
    await bus.close();
    await dataSource.destroy();
  }
}
