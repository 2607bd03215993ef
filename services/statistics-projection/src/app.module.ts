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
import type { StatisticsProjectionConfig } from './config/statistics-projection.config';
import { MIGRATIONS } from './database/migrations';
import { LocationFactsProjection } from './facts/location-facts.projection';
import { StatisticsModule } from './statistics/statistics.module';

@Module({})
export class AppModule {
  static register(config: StatisticsProjectionConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule,
        AuthenticationModule.forRoot({ config: config.auth }),
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.eventBus),
        RateLimitModule.forRoot(config.rateLimits),
        ReadPoolModule.forRoot(config.database, config.readPool),
        ProjectionModule.register({ ...config.projection, projection: LocationFactsProjection }),
        HealthModule.forRoot(
          [DatabaseReadinessCheck, EventBusReadinessCheck, projectionReadinessToken()],
          config.http.readinessGraceMs,
        ),
        StatisticsModule,
      ],
    };
  }
}
