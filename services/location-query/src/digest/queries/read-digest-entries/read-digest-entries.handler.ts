import { Injectable } from '@nestjs/common';
import { DIGEST, type DigestEntriesReply, type DigestResource } from '@lx/contracts';
import { DigestRepository } from '../../infrastructure/digest.repository';
import { DigestNodeTooLargeError } from '../../digest.errors';

/** GET …/digest/entries: every (id, version) of a node, unless it holds more than DIGEST.maxEntries. */
@Injectable()
export class ReadDigestEntriesHandler {
  constructor(private readonly digest: DigestRepository) {}

  async execute(query: { resource: DigestResource; prefix: string }): Promise<DigestEntriesReply> {
    const reply = await this.digest.entries(query.resource, query.prefix, DIGEST.maxEntries);
    if ('tooLarge' in reply) throw new DigestNodeTooLargeError(reply.prefix, reply.count);
    return reply;
  }
}
