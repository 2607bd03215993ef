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
import type { LocationQueryConfig } from './config/location-query.config';
import { MIGRATIONS } from './database/migrations';
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
        AuthenticationModule.forRoot({
          config: config.auth,
          verifier: CachingJwksAccessTokenVerifier,
          imports: [VerifierConfigModule.forRoot(config.auth)],
        }),
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.kafka),
        ProjectionModule.forRoot({ ...config.projection, projection: LocationReadModelProjection }),
        HealthModule.forRoot([DatabaseReadinessCheck, EventBusReadinessCheck, ProjectionReadinessCheck]),
        LocationModule.register(config.snapshot),
        GroupModule,
      ],
    };
  }
}
