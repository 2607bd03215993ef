import { type DynamicModule, Module } from '@nestjs/common';
import { EventBusReadinessCheck, MessagingModule, OutboxModule } from '@lx/messaging';
import { ObjectStoreReadinessCheck, StorageModule } from '@lx/storage';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
  ReadPoolModule,
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
        ReadPoolModule.forRoot(config.database, config.readPool),
        MessagingModule.forRoot(config.eventBus),
        StorageModule.forRoot(config.storage),
        OutboxModule.forRoot(config.outbox),
        HealthModule.forRoot(
          [DatabaseReadinessCheck, EventBusReadinessCheck, ObjectStoreReadinessCheck],
          config.http.readinessGraceMs,
        ),
        ExportModule.register(config),
      ],
    };
  }
}
