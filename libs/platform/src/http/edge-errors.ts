import { randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { API_SECURITY_HEADERS, edgeReplyOf, errorBody } from '@lx/contracts';

/**
 * The request id nginx puts on every reply (`$req_id`): the caller's X-Request-Id when it sent one, otherwise a new
 * one in the form of nginx's `$request_id` (32 hexadecimal digits).
 */
function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && incoming !== '' ? incoming : randomBytes(16).toString('hex');
}

/**
 * Answers `request` as the ingress answers an error it met itself (`met`: see edgeReplyOf): the API's JSON error
 * body, the request id, the API's security headers, Retry-After on a 503; `headers` added (e.g. connection: close).
 */
export function answerEdgeError(
  request: IncomingMessage,
  response: ServerResponse,
  met: number,
  headers: OutgoingHttpHeaders = {},
): void {
  const reply = edgeReplyOf(met);
  response.writeHead(reply.status, {
    'content-type': 'application/json',
    'x-request-id': requestIdOf(request),
    ...API_SECURITY_HEADERS,
    ...(reply.retryAfterSeconds !== undefined && { 'retry-after': String(reply.retryAfterSeconds) }),
    ...headers,
  });
  response.end(`${JSON.stringify(errorBody(reply.error.code, reply.error.message))}\n`);
}

/** How long the backend waits for a request's headers and whole request: it reads no body. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The edge-errors backend (`lx edge-errors`, the chart's edgeErrors): what an Ingress controller forwards the requests
 * it has no route for (the chart's catch-all path, or the controller's default backend) and, with ingress-nginx's
 * custom-http-errors, the errors it intercepts (their status in X-Code). Answers the first 404 RESOURCE_NOT_FOUND, the
 * others their status as the ingress's own errors (answerEdgeError: 502 and 504 are 503), on every path and method:
 * it serves nothing else, so a catch-all route to it exposes nothing. Plain node:http, no framework: it has no
 * routes, no dependencies and no configuration but where to listen.
 */
export function createEdgeErrorServer(): Server {
  return createServer(
    { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS },
    (request, response) => {
      const code = request.headers['x-code'];
      const met = typeof code === 'string' && /^[1-5]\d\d$/.test(code) ? Number(code) : 404;
      answerEdgeError(request, response, met);
    },
  );
}
