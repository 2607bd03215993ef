import { type DynamicModule, Module } from '@nestjs/common';
import {
  EventBus,
  EventBusReadinessCheck,
  MessagingModule,
  ProjectionModule,
  projectionReadinessToken,
} from '@lx/messaging';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
} from '@lx/platform';
import type { LocationQueryConfig } from './config/location-query.config';
import { MIGRATIONS } from './database/migrations';
import { GroupModule } from './group/group.module';
import { LocationModule } from './location/location.module';
import { LocationReadModelProjection } from './read-model/location-read-model.projection';

@Module({})
export class AppModule {
  static register(config: LocationQueryConfig, adapters: { eventBus?: EventBus } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule,
        AuthenticationModule.forRoot({ config: config.auth }),
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.kafka, adapters.eventBus),
        ProjectionModule.register({ ...config.projection, projection: LocationReadModelProjection }),
        HealthModule.forRoot([DatabaseReadinessCheck, EventBusReadinessCheck, projectionReadinessToken()]),
        LocationModule.register(config.snapshot),
        GroupModule,
      ],
    };
  }
}
