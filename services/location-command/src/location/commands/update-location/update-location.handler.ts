import { Injectable } from '@nestjs/common';
import { LocationWriter, type LocationWriteResult } from '../location-writer';

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
  constructor(private readonly writer: LocationWriter) {}

  execute(command: UpdateLocationCommand): Promise<LocationWriteResult> {
    return this.writer.write(command.locationId, command, command.patch, ({ now, existingGroups }) => ({
      type: 'PatchLocation',
      locationId: command.locationId,
      patch: command.patch,
      now,
      existingGroups,
    }));
  }
}
