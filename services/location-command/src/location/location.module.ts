import { Module } from '@nestjs/common';
import { CreateLocationHandler } from './commands/create-location/create-location.handler';
import { ReplaceLocationHandler } from './commands/replace-location/replace-location.handler';
import { UpdateLocationHandler } from './commands/update-location/update-location.handler';
import { LocationController } from './http/location.controller';
import { IdempotencyKeys } from './infrastructure/idempotency-keys';
import { GetLocationHandler } from './queries/get-location/get-location.handler';

/** Single-location writes of the operator API. */
@Module({
  controllers: [LocationController],
  providers: [
    CreateLocationHandler,
    ReplaceLocationHandler,
    UpdateLocationHandler,
    GetLocationHandler,
    IdempotencyKeys,
  ],
})
export class LocationModule {}
