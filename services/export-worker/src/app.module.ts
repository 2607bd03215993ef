import { type DynamicModule, Module } from '@nestjs/common';
import { EventBusReadinessCheck, MessagingModule, OutboxModule } from '@lx/messaging';
import { ObjectStoreReadinessCheck, StorageModule } from '@lx/storage';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
} from '@lx/platform';
import type { ExportWorkerConfig } from './config/export-worker.config';
import { MIGRATIONS } from './database/migrations';
import { ExportModule } from './export/export.module';

@Module({})
export class AppModule {
  static register(config: ExportWorkerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule,
        AuthenticationModule.forRoot({ config: config.auth }),
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.kafka),
        StorageModule.forRoot(config.storage),
        OutboxModule.forRoot(),
        HealthModule.forRoot([DatabaseReadinessCheck, EventBusReadinessCheck, ObjectStoreReadinessCheck]),
        ExportModule.register(config),
      ],
    };
  }
}
