import { Module } from '@nestjs/common';
import { LocationSnapshotController } from './http/location-snapshot.controller';
import { LocationController } from './http/location.controller';
import { LocationReadRepository } from './infrastructure/location-read.repository';
import { ProjectionCatchUp } from './infrastructure/projection-catch-up';
import { GetLocationHandler } from './queries/get-location/get-location.handler';
import { ListLocationsHandler } from './queries/list-locations/list-locations.handler';
import { StreamSnapshotHandler } from './queries/stream-snapshot/stream-snapshot.handler';
import { CATCH_UP_POLL_INTERVAL_MS, SNAPSHOT_OPTIONS, type SnapshotOptions } from './snapshot-options';

@Module({})
export class LocationModule {
  static register(snapshot: Omit<SnapshotOptions, 'catchUpPollIntervalMs'> & Partial<SnapshotOptions>) {
    return {
      module: LocationModule,
      controllers: [LocationController, LocationSnapshotController],
      providers: [
        LocationReadRepository,
        GetLocationHandler,
        ListLocationsHandler,
        StreamSnapshotHandler,
        ProjectionCatchUp,
        { provide: SNAPSHOT_OPTIONS, useValue: { catchUpPollIntervalMs: CATCH_UP_POLL_INTERVAL_MS, ...snapshot } },
      ],
    };
  }
}
