import { Injectable } from '@nestjs/common';
import type { AddressGroupListItem, LocationGroupListItem, Pagination } from '@lx/contracts';
import { type GroupListQuery, paginationOf } from '@lx/domain';
import { GroupReadRepository, type GroupKind } from '../../infrastructure/group-read.repository';

export interface ListGroups extends GroupListQuery {
  kind: GroupKind;
}

/**
 * A page of groups of one kind with the spec's pagination object; with modifiedSince, the groups changed after it,
 * deleted ones as tombstones (deletedAt), counted in the total.
 */
@Injectable()
export class ListGroupsHandler {
  constructor(private readonly groups: GroupReadRepository) {}

  async execute(
    query: ListGroups,
  ): Promise<{ groups: (LocationGroupListItem | AddressGroupListItem)[]; pagination: Pagination }> {
    const { groups, ...listed } = await this.groups.list(query.kind, query, query.page);
    return { groups, pagination: paginationOf(query.page, listed) };
  }
}
