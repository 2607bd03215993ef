import { TOPICS } from '@lx/contracts';
import { KafkaEventBus } from '@lx/messaging';
import { type ProjectionServiceHarness, type ProjectionServiceReply, startProjectionService } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadStatisticsProjectionConfig } from '../../src/config/statistics-projection.config';
import { MIGRATIONS } from '../../src/database/migrations';

export type Reply = ProjectionServiceReply;

/** statistics-projection in this process, on a schema and consumer group of its own, fed from now on. */
export type StatisticsHarness = ProjectionServiceHarness<KafkaEventBus>;

export function startStatistics(settings: Record<string, string> = {}): Promise<StatisticsHarness> {
  return startProjectionService({
    service: 'statistics-projection',
    prefix: 'sp',
    topics: [TOPICS.locationEvents.name],
    migrations: MIGRATIONS,
    load: loadStatisticsProjectionConfig,
    module: (config) => AppModule.register(config),
    bus: (kafka) => new KafkaEventBus(kafka),
    settings,
  });
}
