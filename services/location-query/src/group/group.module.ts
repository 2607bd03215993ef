import { Module } from '@nestjs/common';
import { AddressGroupController, LocationGroupController } from './http/group.controller';
import { GroupReadRepository } from './infrastructure/group-read.repository';
import { GetGroupHandler } from './queries/get-group/get-group.handler';
import { ListGroupsHandler } from './queries/list-groups/list-groups.handler';

@Module({
  controllers: [LocationGroupController, AddressGroupController],
  providers: [GroupReadRepository, GetGroupHandler, ListGroupsHandler],
})
export class GroupModule {}
