import { randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { API_SECURITY_HEADERS, type EdgeStatus, edgeReplyOf, errorBody } from '@lx/contracts';

/**
 * The request id nginx puts on every reply (`$req_id`): the caller's X-Request-Id when it sent one, otherwise a new
 * one in the form of nginx's `$request_id` (32 hexadecimal digits).
 */
function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && incoming !== '' ? incoming : randomBytes(16).toString('hex');
}

/**
 * Answers `request` with the ingress's own error of `status` (EDGE_ERRORS): the API's JSON error body, the request
 * id, the API's security headers, Retry-After on a 503; `headers` added (e.g. connection: close).
 */
export function answerEdgeError(
  request: IncomingMessage,
  response: ServerResponse,
  status: EdgeStatus,
  headers: OutgoingHttpHeaders = {},
): void {
  const reply = edgeReplyOf(status);
  response.writeHead(status, {
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
 * The edge-errors backend (`lx edge-errors`, the chart's edgeErrors): what an Ingress controller sends the requests it
 * has no route for (each chart Ingress's catch-all "/", or the controller's default backend). Answers every request,
 * whatever its path, method or headers, 404 RESOURCE_NOT_FOUND as the ingress's own error (answerEdgeError): it serves
 * nothing else, so a catch-all route to it exposes nothing, and nothing a client sends changes the answer (an
 * ingress-nginx `X-Code` is not read: the catch-all passes client headers on, so a client could set it). Plain
 * node:http, no framework: it has no routes, no dependencies and no configuration but where to listen.
 */
export function createEdgeErrorServer(): Server {
  return createServer({ requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS }, (request, response) =>
    answerEdgeError(request, response, 404),
  );
}
