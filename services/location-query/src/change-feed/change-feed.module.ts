import { type DynamicModule, Module } from '@nestjs/common';
import { Clock, SystemClock } from '@lx/platform';
import { CHANGE_FEED_OPTIONS, type ChangeFeedOptions } from './change-feed-options';
import { ChangeFeedController } from './http/change-feed.controller';
import { ChangeFeedMetrics } from './infrastructure/change-feed-metrics';
import { ChangeFeedRepository } from './infrastructure/change-feed.repository';
import { ReadChangesHandler } from './queries/read-changes/read-changes.handler';
import { PurgeChangesSchedule } from './retention/purge-changes.schedule';

/** GET /locations/changes and the feed's retention; the projection that fills the feed is registered beside it. */
@Module({})
export class ChangeFeedModule {
  static register(options: ChangeFeedOptions): DynamicModule {
    return {
      module: ChangeFeedModule,
      controllers: [ChangeFeedController],
      providers: [
        ChangeFeedRepository,
        ChangeFeedMetrics,
        ReadChangesHandler,
        PurgeChangesSchedule,
        { provide: Clock, useClass: SystemClock },
        { provide: CHANGE_FEED_OPTIONS, useValue: options },
      ],
    };
  }
}
