import { Injectable } from '@nestjs/common';
import type { GroupKind } from '@lx/domain';
import { IdGenerator } from '@lx/platform';
import { GroupWriter, type GroupWriteResult } from '../group-writer';

export interface CreateGroupCommand {
  kind: GroupKind;
  body: unknown;
  correlationId?: string;
}

/** POST /operator/{location|address}-groups: a new group under a server-generated UUID. */
@Injectable()
export class CreateGroupHandler {
  constructor(
    private readonly writer: GroupWriter,
    private readonly ids: IdGenerator,
  ) {}

  execute(command: CreateGroupCommand): Promise<GroupWriteResult> {
    const groupId = this.ids.next();
    return this.writer.write(command.kind, groupId, command, () => ({
      type: 'CreateGroup',
      kind: command.kind,
      groupId,
      body: command.body,
    }));
  }
}
