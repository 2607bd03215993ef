import { Module } from '@nestjs/common';
import { CreateGroupHandler } from './commands/create-group/create-group.handler';
import { DeleteGroupHandler } from './commands/delete-group/delete-group.handler';
import { ReplaceGroupHandler } from './commands/replace-group/replace-group.handler';
import { UpdateGroupHandler } from './commands/update-group/update-group.handler';
import { AddressGroupController, LocationGroupController } from './http/group.controller';
import { GetGroupHandler } from './queries/get-group/get-group.handler';

/** Location group and address group writes of the operator API. */
@Module({
  controllers: [LocationGroupController, AddressGroupController],
  providers: [CreateGroupHandler, ReplaceGroupHandler, UpdateGroupHandler, DeleteGroupHandler, GetGroupHandler],
})
export class GroupModule {}
