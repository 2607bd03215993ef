import { Module } from '@nestjs/common';
import { CreateLocationHandler } from './commands/create-location/create-location.handler';
import { ReplaceLocationHandler } from './commands/replace-location/replace-location.handler';
import { UpdateLocationHandler } from './commands/update-location/update-location.handler';
import { LocationController } from './http/location.controller';
import { IdempotencyKeyRepository } from './infrastructure/idempotency-key.repository';
import { GetLocationHandler } from './queries/get-location/get-location.handler';
import { PurgeIdempotencyKeysSchedule } from './retention/purge-idempotency-keys.schedule';

/** Single-location writes of the operator API. */
@Module({
  controllers: [LocationController],
  providers: [
    CreateLocationHandler,
    ReplaceLocationHandler,
    UpdateLocationHandler,
    GetLocationHandler,
    IdempotencyKeyRepository,
    PurgeIdempotencyKeysSchedule,
  ],
})
export class LocationModule {}
