import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { OAuthErrorBody } from '@lx/contracts';
import { AUTH_REALM } from '@lx/platform';
import { OAuthError } from '../domain/oauth.error';

/** Headers of every token endpoint reply, success or error (RFC 6749 section 5.1): never cached. */
export const NO_STORE_HEADERS = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/**
 * Answers a refused token request as RFC 6749 section 5.2 says: JSON `{error, error_description}`, 401 with a
 * Basic challenge when client authentication failed (a 401 must name a scheme, and Basic is the one the endpoint
 * supports besides body credentials), Retry-After on 429.
 */
@Catch(OAuthError)
export class OAuthErrorFilter implements ExceptionFilter {
  catch(exception: OAuthError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const body: OAuthErrorBody = { error: exception.error, error_description: exception.description };
    const headers: Record<string, string> = { ...NO_STORE_HEADERS };
    if (exception.status === 401) headers['www-authenticate'] = `Basic realm="${AUTH_REALM}", charset="UTF-8"`;
    if (exception.retryAfterSeconds !== undefined) headers['retry-after'] = String(exception.retryAfterSeconds);
    void reply.status(exception.status).headers(headers).type('application/json; charset=utf-8').send(body);
  }
}
