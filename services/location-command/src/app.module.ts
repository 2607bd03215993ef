import { type DynamicModule, Module } from '@nestjs/common';
import { EventBusReadinessCheck, MessagingModule, OutboxModule } from '@lx/messaging';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
} from '@lx/platform';
import type { LocationCommandConfig } from './config/location-command.config';
import { MIGRATIONS } from './database/migrations';
import { EventLog } from './event-store/event-log';
import { EventStoreModule } from './event-store/event-store.module';
import { relayThreadOf } from './event-store/relay-worker-data';
import { GroupModule } from './group/group.module';
import { ImportModule } from './import/import.module';
import { LocationModule } from './location/location.module';
import { BodyParsers } from './shared/http/body-parsers';
import { WatermarkModule } from './watermark/watermark.module';

@Module({})
export class AppModule {
  static register(config: LocationCommandConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule,
        AuthenticationModule.forRoot({ config: config.auth }),
        DatabaseModule.forRoot({ config: config.database, entities: [], migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.eventBus),
        OutboxModule.forSource(EventLog, config.outbox, relayThreadOf(config)),
        EventStoreModule.forRoot({ source: config.events.source }),
        HealthModule.forRoot([DatabaseReadinessCheck, EventBusReadinessCheck], config.http.readinessGraceMs),
        LocationModule,
        GroupModule,
        ImportModule.forRoot(config.imports),
        WatermarkModule.forRoot(config.watermark),
      ],
      providers: [BodyParsers],
    };
  }
}
