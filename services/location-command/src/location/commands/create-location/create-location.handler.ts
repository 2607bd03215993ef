import { Injectable } from '@nestjs/common';
import { referencedGroupIds } from '@lx/domain';
import { IdGenerator } from '@lx/platform';
import { DeciderCommandHandler } from '../../../event-store/decider-command.handler';
import { LOCATION_DECIDER, type LocationWriteResult, locationWriteResultOf } from '../../domain/location.decider';

export interface CreateLocationCommand {
  body: unknown;
  correlationId?: string;
}

/** POST /operator/locations: a new location under a server-generated UUID. */
@Injectable()
export class CreateLocationHandler {
  constructor(
    private readonly handler: DeciderCommandHandler,
    private readonly ids: IdGenerator,
  ) {}

  async execute(command: CreateLocationCommand): Promise<LocationWriteResult> {
    const locationId = this.ids.next();
    const outcome = await this.handler.execute(LOCATION_DECIDER, {
      streamId: locationId,
      correlationId: command.correlationId,
      namedGroups: referencedGroupIds(command.body),
      command: ({ now, existingGroups }) => ({
        type: 'CreateLocation' as const,
        locationId,
        body: command.body,
        now,
        existingGroups,
      }),
    });
    return locationWriteResultOf(outcome, locationId);
  }
}
