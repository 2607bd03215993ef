import { Injectable } from '@nestjs/common';
import type { AddressGroup, LocationGroup } from '@lx/contracts';
import { ResourceNotFoundError } from '@lx/domain';
import { GroupReadRepository, type GroupKind } from '../../infrastructure/group-read.repository';

export interface GetGroup {
  kind: GroupKind;
  /** Canonical lower-case UUID. */
  groupId: string;
}

/** One group; RESOURCE_NOT_FOUND when it never existed or was deleted. */
@Injectable()
export class GetGroupHandler {
  constructor(private readonly groups: GroupReadRepository) {}

  async execute(query: GetGroup): Promise<{ group: LocationGroup | AddressGroup; version: number }> {
    const found = await this.groups.find(query.kind, query.groupId);
    if (found === undefined) throw new ResourceNotFoundError(query.kind, query.groupId);
    return found;
  }
}
