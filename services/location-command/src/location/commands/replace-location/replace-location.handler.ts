import { Injectable } from '@nestjs/common';
import { referencedGroupIds } from '@lx/domain';
import { DeciderCommandHandler } from '../../../event-store/decider-command.handler';
import { LOCATION_DECIDER, type LocationWriteResult, locationWriteResultOf } from '../../domain/location.decider';

export interface ReplaceLocationCommand {
  /** Lower-case UUID chosen by the operator. */
  locationId: string;
  body: unknown;
  ifMatch?: string;
  correlationId?: string;
}

/** PUT /operator/locations/{id}: create the location under the operator's id, or replace it; replaying changes nothing. */
@Injectable()
export class ReplaceLocationHandler {
  constructor(private readonly handler: DeciderCommandHandler) {}

  async execute(command: ReplaceLocationCommand): Promise<LocationWriteResult> {
    const outcome = await this.handler.execute(LOCATION_DECIDER, {
      streamId: command.locationId,
      ifMatch: command.ifMatch,
      correlationId: command.correlationId,
      namedGroups: referencedGroupIds(command.body),
      command: ({ now, existingGroups }) => ({
        type: 'ReplaceLocation' as const,
        locationId: command.locationId,
        body: command.body,
        now,
        existingGroups,
      }),
    });
    return locationWriteResultOf(outcome, command.locationId);
  }
}
