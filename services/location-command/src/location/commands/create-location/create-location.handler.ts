import { Injectable } from '@nestjs/common';
import { IdGenerator } from '@lx/platform';
import { LocationWriter, type LocationWriteResult } from '../location-writer';

export interface CreateLocationCommand {
  body: unknown;
  correlationId?: string;
}

/** POST /operator/locations: a new location under a server-generated UUID. */
@Injectable()
export class CreateLocationHandler {
  constructor(
    private readonly writer: LocationWriter,
    private readonly ids: IdGenerator,
  ) {}

  execute(command: CreateLocationCommand): Promise<LocationWriteResult> {
    const locationId = this.ids.next();
    return this.writer.write(locationId, command, command.body, ({ now, existingGroups }) => ({
      type: 'CreateLocation',
      locationId,
      body: command.body,
      now,
      existingGroups,
    }));
  }
}
