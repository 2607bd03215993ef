import { HttpException, HttpStatus } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ERROR_CODES, type ErrorBody, type ErrorCode } from '@lx/contracts';
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
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  503: 'SERVICE_UNAVAILABLE',
};

/** Messages for the framework's own client errors (body parsing and routing), keyed by Fastify error code. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty but Content-Type is application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is larger than this endpoint accepts',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
};

interface FrameworkError {
  statusCode: number;
  code?: string;
  message: string;
}

function isFrameworkClientError(error: unknown): error is FrameworkError {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

function body(code: string, message: string, details?: Record<string, unknown>): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

function fromHttpException(exception: HttpException): ErrorResponse {
  const status = exception.getStatus();
  const response = exception.getResponse();
  const headers: Record<string, string> = {};
  if (typeof response === 'object' && response !== null && 'error' in response) {
    const candidate = (response as { error: unknown }).error;
    if (typeof candidate === 'object' && candidate !== null && 'code' in candidate && 'message' in candidate) {
      return { status, body: response as ErrorBody, headers };
    }
  }
  const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST');
  if (status === HttpStatus.SERVICE_UNAVAILABLE && typeof response === 'object') {
    // @nestjs/terminus answers readiness failures with the per-dependency report; keep it as details.
    return { status, body: body(code, 'Service is not ready', response as Record<string, unknown>), headers };
  }
  const message =
    status === HttpStatus.NOT_FOUND && /^Cannot [A-Z]+ /.test(exception.message)
      ? `No route for ${exception.message.replace(/^Cannot /, '')}`
      : exception.message;
  return { status, body: body(code, message), headers };
}

/**
 * The one mapping from any thrown value to the spec's error body. Typed domain errors keep their
 * code and details; framework client errors keep their status; anything else is a 500 that reveals
 * only an error id (the full error is logged under that id by the caller).
 */
export function toErrorResponse(exception: unknown): ErrorResponse {
  if (exception instanceof DomainError) {
    const status = ERROR_CODES[exception.code].status;
    return { status, body: body(exception.code, exception.message, exception.details), headers: {} };
  }
  if (exception instanceof HttpException) return fromHttpException(exception);
  if (isFrameworkClientError(exception)) {
    const status = exception.statusCode;
    const message = (exception.code && FASTIFY_MESSAGES[exception.code]) ?? exception.message;
    return { status, body: body(CODE_BY_STATUS[status] ?? 'INVALID_REQUEST', message), headers: {} };
  }
  const errorId = randomUUID();
  return {
    status: HttpStatus.INTERNAL_SERVER_ERROR,
    body: body('INTERNAL_ERROR', 'Internal error', { errorId }),
    headers: {},
    errorId,
  };
}
