import { Injectable } from '@nestjs/common';
import type { GroupKind } from '@lx/domain';
import { GroupWriter, type GroupWriteResult } from '../group-writer';

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
  constructor(private readonly writer: GroupWriter) {}

  execute(command: UpdateGroupCommand): Promise<GroupWriteResult> {
    return this.writer.write(command.kind, command.groupId, command, () => ({
      type: 'PatchGroup',
      kind: command.kind,
      groupId: command.groupId,
      patch: command.patch,
    }));
  }
}
