import { type DynamicModule, Module } from '@nestjs/common';
import { EventBusReadinessCheck, MessagingModule } from '@lx/messaging';
import { DatabaseModule, DatabaseReadinessCheck, HealthModule, MetricsModule } from '@lx/platform';
import type { AuthConfig } from './config/auth.config';
import { MIGRATIONS } from './database/migrations';

@Module({})
export class AppModule {
  static register(config: AuthConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule,
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.kafka),
        HealthModule.forRoot([DatabaseReadinessCheck, EventBusReadinessCheck]),
      ],
    };
  }
}
