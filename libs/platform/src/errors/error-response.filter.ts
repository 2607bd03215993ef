import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from './error-response';

/** Sends any failure as the spec's error body; logs unexpected ones in full with their error id. */
function sendError(exception: unknown, request: FastifyRequest, reply: FastifyReply, logger: Logger): void {
  const response = toErrorResponse(exception);
  if (response.errorId) {
    logger.error(
      { err: exception, errorId: response.errorId, requestId: request.id, url: request.url },
      'Unexpected error',
    );
  }
  void reply.status(response.status).headers(response.headers).type('application/json').send(response.body);
}

/** Global Nest filter: Nest routes Fastify's own errors (body parsing, unknown routes) through it too. */
@Catch()
export class ErrorResponseFilter implements ExceptionFilter {
  private readonly logger = new Logger(ErrorResponseFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger);
  }
}
