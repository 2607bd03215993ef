import type { FastifyInstance } from 'fastify';
import { API_SECURITY_HEADERS } from '@lx/contracts';

/**
 * Adds API_SECURITY_HEADERS to every reply; a route that sets its own Content-Security-Policy (the /docs page) keeps
 * it.
 */
export function addSecurityHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) {
      if (!reply.hasHeader(name)) void reply.header(name, value);
    }
  });
}
