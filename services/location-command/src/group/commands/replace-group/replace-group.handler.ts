import { Injectable } from '@nestjs/common';
import type { GroupKind } from '@lx/domain';
import { DeciderCommandHandler } from '../../../event-store/decider-command.handler';
import { groupDecider, type GroupWriteResult, groupWriteResultOf } from '../../domain/group.decider';

export interface ReplaceGroupCommand {
  kind: GroupKind;
  groupId: string;
  body: unknown;
  ifMatch?: string;
  correlationId?: string;
}

/** PUT /operator/{location|address}-groups/{id}: create or replace under the operator's id; replaying changes nothing. */
@Injectable()
export class ReplaceGroupHandler {
  constructor(private readonly handler: DeciderCommandHandler) {}

  async execute(command: ReplaceGroupCommand): Promise<GroupWriteResult> {
    const outcome = await this.handler.execute(groupDecider(command.kind), {
      streamId: command.groupId,
      ifMatch: command.ifMatch,
      correlationId: command.correlationId,
      command: () => ({
        type: 'ReplaceGroup' as const,
        kind: command.kind,
        groupId: command.groupId,
        body: command.body,
      }),
    });
    return groupWriteResultOf(outcome, command.kind, command.groupId);
  }
}
