import { Injectable } from '@nestjs/common';
import type { GroupKind } from '@lx/domain';
import { GroupWriter, type GroupWriteResult } from '../group-writer';

export interface DeleteGroupCommand {
  kind: GroupKind;
  groupId: string;
  ifMatch?: string;
  correlationId?: string;
}

/** DELETE /operator/{location|address}-groups/{id}: only while no location references the group. */
@Injectable()
export class DeleteGroupHandler {
  constructor(private readonly writer: GroupWriter) {}

  execute(command: DeleteGroupCommand): Promise<GroupWriteResult> {
    return this.writer.write(command.kind, command.groupId, command, async (transaction) => ({
      type: 'DeleteGroup',
      kind: command.kind,
      groupId: command.groupId,
      // Counted after the group row is locked: a location write referencing the group holds that row FOR SHARE
      // until it commits, so it is either counted here or sees the group deleted.
      referencingLocations: await transaction.referencingLocations(command.kind, command.groupId),
    }));
  }
}
