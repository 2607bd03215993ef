import { Controller, Get, Headers, Injectable, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type AddressGroupList, type LocationGroupList, SCOPES } from '@lx/contracts';
import { parseGroupListQuery, type QueryParameters } from '@lx/domain';
import { etagOf, ifNoneMatchMatches, RateLimited, RequireScope, UuidParamPipe } from '@lx/platform';
import { valueOrThrow } from '../../shared/http/query-result';
import type { GroupKind } from '../infrastructure/group-read.repository';
import { GetGroupHandler } from '../queries/get-group/get-group.handler';
import { ListGroupsHandler } from '../queries/list-groups/list-groups.handler';

/**
 * Reads of one kind of group. Both kinds follow the same rules and differ in path, list key and type; (@Injectable
 * makes the compiler emit the constructor's parameter types, which Nest reads for the subclasses).
 */
@Injectable()
abstract class GroupController {
  protected abstract readonly kind: GroupKind;
  protected abstract readonly type: 'OTHER' | 'MDU_COMPLEX';
  protected abstract readonly listKey: 'locationGroups' | 'addressGroups';

  constructor(
    private readonly getGroup: GetGroupHandler,
    private readonly listGroups: ListGroupsHandler,
  ) {}

  @Get()
  async list(@Query() query: QueryParameters): Promise<LocationGroupList | AddressGroupList> {
    const parsed = valueOrThrow(parseGroupListQuery(query, this.type));
    const { groups, pagination } = await this.listGroups.execute({ kind: this.kind, ...parsed });
    return { [this.listKey]: groups, pagination } as LocationGroupList | AddressGroupList;
  }

  @Get(':id')
  async get(
    @Param('id', UuidParamPipe) groupId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { group, version } = await this.getGroup.execute({ kind: this.kind, groupId });
    const etag = etagOf(version);
    void reply.header('etag', etag);
    if (ifNoneMatchMatches(ifNoneMatch, etag)) {
      void reply.status(304);
      return undefined;
    }
    return group;
  }
}

@Controller('location-groups')
@RequireScope(SCOPES.locationsRead)
@RateLimited()
export class LocationGroupController extends GroupController {
  protected readonly kind = 'locationGroup';
  protected readonly type = 'OTHER';
  protected readonly listKey = 'locationGroups';
}

@Controller('address-groups')
@RequireScope(SCOPES.locationsRead)
@RateLimited()
export class AddressGroupController extends GroupController {
  protected readonly kind = 'addressGroup';
  protected readonly type = 'MDU_COMPLEX';
  protected readonly listKey = 'addressGroups';
}
