import { Controller, Get, Headers, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ifNoneMatchMatches } from '@lx/platform';
import { LocalRevocations } from '../infrastructure/local-revocations';

/**
 * The revocation list every verifier polls (internal: the ingress never routes `/internal/`; served without a token,
 * like the JWKS, because verifiers have none of their own). Its entity tag makes an unchanged list a 304.
 */
@Controller('internal')
export class RevocationsController {
  constructor(private readonly revocations: LocalRevocations) {}

  @Get('revocations')
  async list(
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | undefined> {
    const { body, etag } = await this.revocations.published();
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    if (ifNoneMatchMatches(ifNoneMatch, etag)) {
      void reply.status(304);
      return undefined;
    }
    void reply.type('application/json; charset=utf-8');
    return body;
  }
}
