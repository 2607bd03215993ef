import { Controller, Header, HttpCode, Post, Req, UseFilters } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { isIP } from 'node:net';
import type { TokenResponse } from '@lx/contracts';
import { IssueTokenHandler } from '../commands/issue-token/issue-token.handler';
import { sourceOf } from '../domain/failure-window';
import { parseTokenRequest } from '../domain/token-request';
import { NO_STORE_HEADERS, OAuthErrorFilter } from './oauth-error.filter';

/** Path of the token endpoint; public (no bearer token), like the JWKS. */
export const TOKEN_PATH = '/oauth/token';

/**
 * The caller's address: the one X-Forwarded-For names behind the trusted proxies, unless that is no address at all
 * (a proxy that appends ports, a made-up value), when the peer's own address counts.
 */
function callerAddress(request: FastifyRequest): string {
  return isIP(request.ip) !== 0 ? request.ip : (request.socket.remoteAddress ?? request.ip);
}

/** POST /oauth/token: the OAuth 2.0 client credentials grant (RFC 6749 section 4.4). */
@Controller('oauth')
@UseFilters(OAuthErrorFilter)
export class TokenController {
  constructor(private readonly issueToken: IssueTokenHandler) {}

  @Post('token')
  @HttpCode(200)
  @Header('cache-control', NO_STORE_HEADERS['cache-control'])
  @Header('pragma', NO_STORE_HEADERS.pragma)
  token(@Req() request: FastifyRequest): Promise<TokenResponse> {
    const tokenRequest = parseTokenRequest({
      contentType: request.headers['content-type'],
      authorization: request.headers.authorization,
      body: request.body,
    });
    return this.issueToken.execute({ ...tokenRequest, source: sourceOf(callerAddress(request)) });
  }
}
