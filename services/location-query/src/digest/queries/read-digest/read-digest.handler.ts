import { Injectable } from '@nestjs/common';
import type { DigestNodeReply, DigestResource } from '@lx/contracts';
import type { DigestQuery } from '@lx/domain';
import { DigestRepository } from '../../infrastructure/digest.repository';

/** GET …/digest: a node of a resource's digest and its non-empty children `depth` levels below. */
@Injectable()
export class ReadDigestHandler {
  constructor(private readonly digest: DigestRepository) {}

  execute(query: DigestQuery & { resource: DigestResource }): Promise<DigestNodeReply> {
    return this.digest.node(query.resource, query.prefix, query.depth);
  }
}
