import { type DynamicModule, Module } from '@nestjs/common';
import { EventBusReadinessCheck, MessagingModule, ProjectionModule, ProjectionReadinessCheck } from '@lx/messaging';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
  CachingJwksAccessTokenVerifier,
  VerifierConfigModule,
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
        AuthenticationModule.forRoot({
          config: config.auth,
          verifier: CachingJwksAccessTokenVerifier,
          imports: [VerifierConfigModule.forRoot(config.auth)],
        }),
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.kafka),
        ProjectionModule.forRoot({ ...config.projection, projection: LocationFactsProjection }),
        HealthModule.forRoot([DatabaseReadinessCheck, EventBusReadinessCheck, ProjectionReadinessCheck]),
        StatisticsModule,
      ],
    };
  }
}
