import { HttpException, HttpStatus } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { errorBody as body, type ErrorBody, type ErrorCode, httpStatusOf } from '@lx/contracts';
import { DomainError } from '@lx/domain';

/** What the edge answers for a failure: status, the spec's error body, extra headers. */
export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** Set for unexpected failures: the id under which the full error was logged. */
  errorId?: string;
}

const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'RESOURCE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  503: 'SERVICE_UNAVAILABLE',
};

/** node-postgres's errors for a connection not had within connectionTimeoutMillis (pg-pool 3: waiting, connecting). */
export const DATABASE_CONNECT_TIMEOUTS: ReadonlySet<string> = new Set([
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
]);

/**
 * Why Postgres refused a connection before any statement could run: too_many_connections, cannot_connect_now
 * (starting up, shutting down). A connection lost while a statement ran is not among them (whether that statement
 * took effect is unknown), nor a socket error such as ECONNREFUSED, which the Kafka and object store clients raise
 * too.
 */
const DATABASE_REFUSALS = new Set(['53300', '57P03']);

/** Seconds a request refused for want of a database connection is told to wait before it tries again. */
const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * Whether `error` says no database connection could be had (pool or connect timeout, a refusal by Postgres): the step
 * that needed it ran nothing, so repeating the request is safe.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // A code that is not one of the strings (absent, a number) is in no Set of strings.
  return (
    DATABASE_CONNECT_TIMEOUTS.has(error.message) || DATABASE_REFUSALS.has((error as Error & { code: string }).code)
  );
}

/** The report @nestjs/terminus throws when a readiness check fails: `{ status: 'error', info, error, details }`. */
function isReadinessReport(response: unknown): response is Record<string, unknown> {
  return (
    typeof response === 'object' &&
    response !== null &&
    (response as { status?: unknown }).status === 'error' &&
    'details' in response
  );
}

function fromHttpException(exception: HttpException): ErrorResponse {
  const status = exception.getStatus();
  const response = exception.getResponse();
  const headers: Record<string, string> = {};
  if (typeof response === 'object' && response !== null && 'error' in response) {
    const candidate = response.error;
    if (typeof candidate === 'object' && candidate !== null && 'code' in candidate && 'message' in candidate) {
      return { status, body: response as ErrorBody, headers };
    }
  }
  const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST');
  if (status === 503 && isReadinessReport(response)) {
    // @nestjs/terminus answers readiness failures with the per-dependency report; keep it as details.
    return { status, body: body(code, 'Service is not ready', response), headers };
  }
  const message =
    status === 404 && /^Cannot [A-Z]+ /.test(exception.message)
      ? `No route for ${exception.message.replace(/^Cannot /, '')}`
      : exception.message;
  return { status, body: body(code, message), headers };
}

/**
 * The one mapping from any thrown value to the spec's error body. Typed domain errors keep their
 * code and details; HTTP exceptions keep their status (Nest hands Fastify's body-parsing and routing
 * errors over as HttpException too); a request that could get no database connection is a 503 with Retry-After;
 * anything else is a 500. Those two reveal only an error id (the full error is logged under that id by the caller).
 */
export function toErrorResponse(exception: unknown): ErrorResponse {
  if (exception instanceof DomainError) {
    const status = httpStatusOf(exception.code);
    // Retry-After of a 429, the RFC 6750 WWW-Authenticate challenge of authentication and scope errors.
    const headers = { ...exception.headers };
    return { status, body: body(exception.code, exception.message, exception.details), headers };
  }
  if (exception instanceof HttpException) return fromHttpException(exception);
  const errorId = randomUUID();
  if (isDatabaseUnavailable(exception)) {
    return {
      status: HttpStatus.SERVICE_UNAVAILABLE,
      body: body('SERVICE_UNAVAILABLE', 'The database cannot be reached right now; retry shortly', { errorId }),
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
      errorId,
    };
  }
  return {
    status: HttpStatus.INTERNAL_SERVER_ERROR,
    body: body('INTERNAL_ERROR', 'Internal error', { errorId }),
    headers: {},
    errorId,
  };
}
