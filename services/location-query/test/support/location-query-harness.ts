import { TOPICS } from '@lx/contracts';
import { KafkaEventBus } from '@lx/messaging';
import { type ProjectionServiceHarness, type ProjectionServiceReply, startProjectionService } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadLocationQueryConfig } from '../../src/config/location-query.config';
import { MIGRATIONS } from '../../src/database/migrations';

export const READ_MODEL_TOPICS = [
  TOPICS.locationEvents.name,
  TOPICS.locationGroupEvents.name,
  TOPICS.addressGroupEvents.name,
];

export type Reply = ProjectionServiceReply;

/** location-query in this process, on a schema and consumer group of its own, fed from now on. */
export type LocationQueryHarness = ProjectionServiceHarness<KafkaEventBus>;

export function startLocationQuery(settings: Record<string, string> = {}): Promise<LocationQueryHarness> {
  return startProjectionService({
    service: 'location-query',
    prefix: 'lq',
    topics: READ_MODEL_TOPICS,
    migrations: MIGRATIONS,
    load: loadLocationQueryConfig,
    module: (config) => AppModule.register(config),
    bus: (kafka) => new KafkaEventBus(kafka),
    settings,
  });
}
