import { Injectable } from '@nestjs/common';
import { referencedGroupIds } from '@lx/domain';
import { DeciderCommandHandler } from '../../../event-store/decider-command.handler';
import { LOCATION_DECIDER, type LocationWriteResult, locationWriteResultOf } from '../../domain/location.decider';

export interface UpdateLocationCommand {
  /** Lower-case UUID of an existing location. */
  locationId: string;
  /** A JSON Merge Patch (RFC 7396). */
  patch: unknown;
  ifMatch?: string;
  correlationId?: string;
}

/** PATCH /operator/locations/{id}: a partial update as a JSON Merge Patch. */
@Injectable()
export class UpdateLocationHandler {
  constructor(private readonly handler: DeciderCommandHandler) {}

  async execute(command: UpdateLocationCommand): Promise<LocationWriteResult> {
    const outcome = await this.handler.execute(LOCATION_DECIDER, {
      streamId: command.locationId,
      ifMatch: command.ifMatch,
      correlationId: command.correlationId,
      namedGroups: referencedGroupIds(command.patch),
      command: ({ now, existingGroups }) => ({
        type: 'PatchLocation' as const,
        locationId: command.locationId,
        patch: command.patch,
        now,
        existingGroups,
      }),
    });
    return locationWriteResultOf(outcome, command.locationId);
  }
}
