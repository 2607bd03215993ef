import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { IMPORT_MEDIA_TYPES } from '@lx/contracts';

/** RFC 7396 media type of a JSON Merge Patch; PATCH also takes plain application/json. */
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

/**
 * Registers the write API's body parsers before the server starts: merge patches parse like any JSON body (same size
 * limit), while import bodies are not read here at all but handed over as the request stream, so a file of any size
 * is processed row by row with flat memory (Fastify's body limit applies only to bodies it reads itself).
 */
@Injectable()
export class BodyParsers implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    if (!fastify.hasContentTypeParser(MERGE_PATCH_MEDIA_TYPE)) {
      fastify.addContentTypeParser(
        MERGE_PATCH_MEDIA_TYPE,
        { parseAs: 'string' },
        fastify.getDefaultJsonParser('error', 'error'),
      );
    }
    for (const mediaType of Object.values(IMPORT_MEDIA_TYPES)) {
      if (fastify.hasContentTypeParser(mediaType)) continue;
      fastify.addContentTypeParser(mediaType, (_request, payload, done) => done(null, payload));
    }
  }
}
