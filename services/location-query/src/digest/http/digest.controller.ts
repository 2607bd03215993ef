import { Controller, Get, Query } from '@nestjs/common';
import { type DigestEntriesReply, type DigestNodeReply, type DigestResource, SCOPES } from '@lx/contracts';
import { parseDigestEntriesQuery, parseDigestQuery, type QueryParameters } from '@lx/domain';
import { RateLimited, RequireScope } from '@lx/platform';
import { valueOrThrow } from '../../shared/http/query-result';
import { ReadDigestEntriesHandler } from '../queries/read-digest-entries/read-digest-entries.handler';
import { ReadDigestHandler } from '../queries/read-digest/read-digest.handler';

/**
 * The Merkle digest of the read model (docs/digest.md), for RSPs comparing their mirror: per resource a node with its
 * children, and a node's entries. Static routes: Fastify matches them before the parametric `/locations/:id` and
 * `/location-groups/:id` whatever the registration order, so `digest` is never taken for an id.
 */
@Controller()
@RequireScope(SCOPES.locationsRead)
@RateLimited()
export class DigestController {
  constructor(
    private readonly readDigest: ReadDigestHandler,
    private readonly readEntries: ReadDigestEntriesHandler,
  ) {}

  @Get('locations/digest')
  locations(@Query() query: QueryParameters): Promise<DigestNodeReply> {
    return this.node('locations', query);
  }

  @Get('locations/digest/entries')
  locationEntries(@Query() query: QueryParameters): Promise<DigestEntriesReply> {
    return this.entries('locations', query);
  }

  @Get('location-groups/digest')
  locationGroups(@Query() query: QueryParameters): Promise<DigestNodeReply> {
    return this.node('locationGroups', query);
  }

  @Get('location-groups/digest/entries')
  locationGroupEntries(@Query() query: QueryParameters): Promise<DigestEntriesReply> {
    return this.entries('locationGroups', query);
  }

  @Get('address-groups/digest')
  addressGroups(@Query() query: QueryParameters): Promise<DigestNodeReply> {
    return this.node('addressGroups', query);
  }

  @Get('address-groups/digest/entries')
  addressGroupEntries(@Query() query: QueryParameters): Promise<DigestEntriesReply> {
    return this.entries('addressGroups', query);
  }

  private node(resource: DigestResource, query: QueryParameters): Promise<DigestNodeReply> {
    return this.readDigest.execute({ resource, ...valueOrThrow(parseDigestQuery(query)) });
  }

  private entries(resource: DigestResource, query: QueryParameters): Promise<DigestEntriesReply> {
    return this.readEntries.execute({ resource, ...valueOrThrow(parseDigestEntriesQuery(query)) });
  }
}
