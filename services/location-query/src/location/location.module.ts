import { Module } from '@nestjs/common';
import { LocationSnapshotController } from './http/location-snapshot.controller';
import { LocationController } from './http/location.controller';
import { LocationReadRepository } from './infrastructure/location-read.repository';
import { GetLocationHandler } from './queries/get-location/get-location.handler';
import { ListLocationsHandler } from './queries/list-locations/list-locations.handler';
import { SNAPSHOT_FETCH_ROWS, StreamSnapshotHandler } from './queries/stream-snapshot/stream-snapshot.handler';

@Module({})
export class LocationModule {
  static register(snapshot: { fetchRows: number }) {
    return {
      module: LocationModule,
      controllers: [LocationController, LocationSnapshotController],
      providers: [
        LocationReadRepository,
        GetLocationHandler,
        ListLocationsHandler,
        StreamSnapshotHandler,
        { provide: SNAPSHOT_FETCH_ROWS, useValue: snapshot.fetchRows },
      ],
    };
  }
}
