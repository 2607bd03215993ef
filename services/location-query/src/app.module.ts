import { type DynamicModule, Module } from '@nestjs/common';
import { EventBusReadinessCheck, MessagingModule, ProjectionModule, projectionReadinessToken } from '@lx/messaging';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
  RateLimitModule,
  ReadPoolModule,
} from '@lx/platform';
import type { LocationQueryConfig } from './config/location-query.config';
import { ChangeFeedModule } from './change-feed/change-feed.module';
import { LocationChangesProjection } from './change-feed/infrastructure/location-changes.projection';
import { MIGRATIONS } from './database/migrations';
import { DigestModule } from './digest/digest.module';
import { GroupModule } from './group/group.module';
import { LocationModule } from './location/location.module';
import { LocationReadModelProjection } from './read-model/location-read-model.projection';

@Module({})
export class AppModule {
  static register(config: LocationQueryConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule,
        AuthenticationModule.forRoot({ config: config.auth }),
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.eventBus),
        RateLimitModule.forRoot(config.rateLimits),
        ReadPoolModule.forRoot(config.database, config.readPool),
        ProjectionModule.register({ ...config.projection, projection: LocationReadModelProjection }),
        // The feed is its own consumer group, so it can be rebuilt (or fall behind) without touching the read model.
        ProjectionModule.register({
          name: 'changes',
          groupId: config.changeFeed.groupId,
          batchSize: config.projection.batchSize,
          concurrency: config.projection.concurrency,
          projection: LocationChangesProjection,
        }),
        HealthModule.forRoot(
          [
            DatabaseReadinessCheck,
            EventBusReadinessCheck,
            projectionReadinessToken(),
            projectionReadinessToken('changes'),
          ],
          config.http.readinessGraceMs,
        ),
        ChangeFeedModule.register({ retentionDays: config.changeFeed.retentionDays }),
        LocationModule.register(config.snapshot),
        GroupModule,
        DigestModule.register({ projectionGroupId: config.projection.groupId }),
      ],
    };
  }
}
