import { Injectable } from '@nestjs/common';
import type { GroupKind } from '@lx/domain';
import { GroupWriter, type GroupWriteResult } from '../group-writer';

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
  constructor(private readonly writer: GroupWriter) {}

  execute(command: ReplaceGroupCommand): Promise<GroupWriteResult> {
    return this.writer.write(command.kind, command.groupId, command, () => ({
      type: 'ReplaceGroup',
      kind: command.kind,
      groupId: command.groupId,
      body: command.body,
    }));
  }
}
