import { type DynamicModule, Module } from '@nestjs/common';
import { EventBusReadinessCheck, MessagingModule } from '@lx/messaging';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
} from '@lx/platform';
import type { AuthConfig } from './config/auth.config';
import { MIGRATIONS } from './database/migrations';

@Module({})
export class AppModule {
  static register(config: AuthConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule,
        AuthenticationModule.forRoot({ config: config.auth, publicPaths: ['/oauth/token', '/.well-known/jwks.json'] }),
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.kafka),
        HealthModule.forRoot([DatabaseReadinessCheck, EventBusReadinessCheck]),
      ],
    };
  }
}
