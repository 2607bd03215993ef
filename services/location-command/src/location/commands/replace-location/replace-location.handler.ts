import { Injectable } from '@nestjs/common';
import { LocationWriter, type LocationWriteResult } from '../location-writer';

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
  constructor(private readonly writer: LocationWriter) {}

  execute(command: ReplaceLocationCommand): Promise<LocationWriteResult> {
    return this.writer.write(command.locationId, command, command.body, ({ now, existingGroups }) => ({
      type: 'ReplaceLocation',
      locationId: command.locationId,
      body: command.body,
      now,
      existingGroups,
    }));
  }
}
