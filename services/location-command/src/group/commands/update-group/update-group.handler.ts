import { Injectable } from '@nestjs/common';
import type { GroupKind } from '@lx/domain';
import { DeciderCommandHandler } from '../../../event-store/decider-command.handler';
import { groupDecider, type GroupWriteResult, groupWriteResultOf } from '../../domain/group.decider';

export interface UpdateGroupCommand {
  kind: GroupKind;
  groupId: string;
  /** A JSON Merge Patch (RFC 7396). */
  patch: unknown;
  ifMatch?: string;
  correlationId?: string;
}

/** PATCH /operator/{location|address}-groups/{id}: a partial update as a JSON Merge Patch. */
@Injectable()
export class UpdateGroupHandler {
  constructor(private readonly handler: DeciderCommandHandler) {}

  async execute(command: UpdateGroupCommand): Promise<GroupWriteResult> {
    const outcome = await this.handler.execute(groupDecider(command.kind), {
      streamId: command.groupId,
      ifMatch: command.ifMatch,
      correlationId: command.correlationId,
      command: () => ({
        type: 'PatchGroup' as const,
        kind: command.kind,
        groupId: command.groupId,
        patch: command.patch,
      }),
    });
    return groupWriteResultOf(outcome, command.kind, command.groupId);
  }
}
