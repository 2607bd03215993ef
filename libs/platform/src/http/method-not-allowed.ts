import type { FastifyInstance } from 'fastify';
import { errorBody } from '@lx/contracts';

/** A route as Fastify registered it: its method and its URL pattern (`/locations/:id`). */
export interface RegisteredRoute {
  method: string;
  url: string;
}

/** Whether a concrete path matches a Fastify URL pattern, each `:param` standing for one non-empty path segment. */
export function matchesRoute(pattern: string, path: string): boolean {
  const segments = pattern.split('/');
  const actual = path.split('/');
  return (
    segments.length === actual.length &&
    segments.every((segment, i) => (segment.startsWith(':') ? actual[i] !== '' : segment === actual[i]))
  );
}

/** The methods `path` is served with, sorted; empty when no route has that path. */
export function allowedMethods(routes: readonly RegisteredRoute[], path: string): string[] {
  const methods = routes.filter((route) => matchesRoute(route.url, path)).map((route) => route.method);
  return [...new Set(methods)].sort();
}

/**
 * Answers a known path asked with a method it is not served with 405 METHOD_NOT_ALLOWED and an Allow header (RFC 9110
 * section 15.5.6), before authentication: the paths are public in the OpenAPI document, so the answer tells an
 * unauthenticated caller nothing the document does not. Unknown paths are left to the other hooks (401 without a
 * token, 404 with one). Call before any route is registered: routes are collected as they are added.
 */
export function answerMethodNotAllowed(fastify: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  fastify.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url !== undefined) return;
    const path = request.url.split('?', 1)[0] ?? '';
    const allowed = allowedMethods(routes, path);
    if (allowed.length === 0) return;
    await reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send(
        errorBody('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`),
      );
  });
}
