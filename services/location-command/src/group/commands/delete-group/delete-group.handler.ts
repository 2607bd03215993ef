import { Injectable } from '@nestjs/common';
import type { GroupKind } from '@lx/domain';
import { DeciderCommandHandler } from '../../../event-store/decider-command.handler';
import { groupDecider, type GroupWriteResult, groupWriteResultOf } from '../../domain/group.decider';

export interface DeleteGroupCommand {
  kind: GroupKind;
  groupId: string;
  ifMatch?: string;
  correlationId?: string;
}

/** DELETE /operator/{location|address}-groups/{id}: only while no location references the group. */
@Injectable()
export class DeleteGroupHandler {
  constructor(private readonly handler: DeciderCommandHandler) {}

  async execute(command: DeleteGroupCommand): Promise<GroupWriteResult> {
    const outcome = await this.handler.execute(groupDecider(command.kind), {
      streamId: command.groupId,
      ifMatch: command.ifMatch,
      correlationId: command.correlationId,
      // Counted after the group row is locked: a location write referencing the group holds that row FOR SHARE
      // until it commits, so it is either counted here or sees the group deleted.
      countReferences: true,
      command: ({ referencingLocations }) => ({
        type: 'DeleteGroup' as const,
        kind: command.kind,
        groupId: command.groupId,
        referencingLocations,
      }),
    });
    return groupWriteResultOf(outcome, command.kind, command.groupId);
  }
}
