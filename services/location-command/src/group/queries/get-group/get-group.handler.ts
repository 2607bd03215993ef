import { Injectable } from '@nestjs/common';
import { type Group, type GroupKind, ResourceNotFoundError } from '@lx/domain';
import { EventStore } from '../../../event-store/event-store';

export interface GetGroupQuery {
  kind: GroupKind;
  groupId: string;
}

/** GET /operator/{location|address}-groups/{id}: the current group with its version, for If-Match. */
@Injectable()
export class GetGroupHandler {
  constructor(private readonly store: EventStore) {}

  async execute(query: GetGroupQuery): Promise<{ group: Group; version: number }> {
    const stream = await this.store.find(query.groupId);
    if (stream?.streamType !== query.kind || stream.deleted) throw new ResourceNotFoundError(query.kind, query.groupId);
    return { group: stream.data as Group, version: stream.version };
  }
}
