import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Injectable,
  Param,
  Patch,
  Post,
  Put,
  Req,
  Res,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SCOPES } from '@lx/contracts';
import type { Group, GroupKind } from '@lx/domain';
import { etagOf, RequireScope, UuidParamPipe } from '@lx/platform';
import { CreateGroupHandler } from '../commands/create-group/create-group.handler';
import { DeleteGroupHandler } from '../commands/delete-group/delete-group.handler';
import { ReplaceGroupHandler } from '../commands/replace-group/replace-group.handler';
import { UpdateGroupHandler } from '../commands/update-group/update-group.handler';
import { GetGroupHandler } from '../queries/get-group/get-group.handler';

/**
 * The write API of one kind of group. Location groups and address groups follow the same rules, so both controllers
 * share these routes and differ only in path and kind. (@Injectable makes the compiler emit the constructor's parameter
 * types, which Nest reads for the subclasses.)
 */
@Injectable()
abstract class GroupController {
  protected abstract readonly kind: GroupKind;
  protected abstract readonly path: string;

  constructor(
    private readonly createGroup: CreateGroupHandler,
    private readonly replaceGroup: ReplaceGroupHandler,
    private readonly updateGroup: UpdateGroupHandler,
    private readonly deleteGroup: DeleteGroupHandler,
    private readonly getGroup: GetGroupHandler,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Group> {
    const result = await this.createGroup.execute({ kind: this.kind, body, correlationId: request.id });
    void reply.header('location', `/${this.path}/${result.group.id}`);
    return respond(reply, result);
  }

  /** 201 when the group was new (or had been deleted), 200 otherwise. */
  @Put(':id')
  async replace(
    @Param('id', UuidParamPipe) groupId: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Group> {
    const command = { kind: this.kind, groupId, body, ifMatch, correlationId: request.id };
    const result = await this.replaceGroup.execute(command);
    void reply.status(result.created ? 201 : 200);
    return respond(reply, result);
  }

  @Patch(':id')
  async update(
    @Param('id', UuidParamPipe) groupId: string,
    @Body() patch: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Group> {
    const command = { kind: this.kind, groupId, patch, ifMatch, correlationId: request.id };
    return respond(reply, await this.updateGroup.execute(command));
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(
    @Param('id', UuidParamPipe) groupId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.deleteGroup.execute({ kind: this.kind, groupId, ifMatch, correlationId: request.id });
  }

  @Get(':id')
  async get(
    @Param('id', UuidParamPipe) groupId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Group> {
    return respond(reply, await this.getGroup.execute({ kind: this.kind, groupId }));
  }
}

@Controller('operator/location-groups')
@RequireScope(SCOPES.locationsWrite)
export class LocationGroupController extends GroupController {
  protected readonly kind = 'locationGroup';
  protected readonly path = 'operator/location-groups';
}

@Controller('operator/address-groups')
@RequireScope(SCOPES.locationsWrite)
export class AddressGroupController extends GroupController {
  protected readonly kind = 'addressGroup';
  protected readonly path = 'operator/address-groups';
}

function respond(reply: FastifyReply, result: { group: Group; version: number }): Group {
  void reply.header('etag', etagOf(result.version));
  return result.group;
}
