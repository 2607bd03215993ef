import { Injectable } from '@nestjs/common';
import type { GroupKind } from '@lx/domain';
import { IdGenerator } from '@lx/platform';
import { DeciderCommandHandler } from '../../../event-store/decider-command.handler';
import { groupDecider, type GroupWriteResult, groupWriteResultOf } from '../../domain/group.decider';

export interface CreateGroupCommand {
  kind: GroupKind;
  body: unknown;
  correlationId?: string;
}

/** POST /operator/{location|address}-groups: a new group under a server-generated UUID. */
@Injectable()
export class CreateGroupHandler {
  constructor(
    private readonly handler: DeciderCommandHandler,
    private readonly ids: IdGenerator,
  ) {}

  async execute(command: CreateGroupCommand): Promise<GroupWriteResult> {
    const groupId = this.ids.next();
    const outcome = await this.handler.execute(groupDecider(command.kind), {
      streamId: groupId,
      correlationId: command.correlationId,
      command: () => ({ type: 'CreateGroup' as const, kind: command.kind, groupId, body: command.body }),
    });
    return groupWriteResultOf(outcome, command.kind, groupId);
  }
}
