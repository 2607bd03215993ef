import type { ErrorCode } from './error-codes';

/** An error the ingress answers itself: the error code and message of its body. */
export interface EdgeError {
  code: ErrorCode;
  message: string;
}

/**
 * The errors the ingress answers itself, never a service, by the status it answers; every other status it meets
 * itself is its own failure (500). One table for the three places that answer them: nginx's maps
 * (helm/location-exchange/files/nginx/edge-errors.http.conf, which the local ingress includes and the chart's
 * Ingress controller is given), the edge-errors backend (lx edge-errors) and the embedded profile's ingress.
 */
export const EDGE_ERRORS = {
  400: { code: 'INVALID_REQUEST', message: 'The request is malformed or its headers are too large' },
  404: { code: 'RESOURCE_NOT_FOUND', message: 'No route for this path' },
  405: { code: 'METHOD_NOT_ALLOWED', message: 'This method is not allowed' },
  411: { code: 'INVALID_REQUEST', message: 'The request body needs a Content-Length' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than the ingress accepts' },
  414: { code: 'URI_TOO_LONG', message: 'The request URI is longer than the ingress accepts' },
  500: { code: 'INTERNAL_ERROR', message: 'The ingress failed to handle the request' },
  501: { code: 'INVALID_REQUEST', message: 'The request uses a transfer encoding the ingress does not implement' },
  503: { code: 'SERVICE_UNAVAILABLE', message: 'The service for this path is not available' },
  505: { code: 'INVALID_REQUEST', message: 'The HTTP version of the request is not supported' },
} as const satisfies Record<number, EdgeError>;

/** A status of EDGE_ERRORS. */
export type EdgeStatus = keyof typeof EDGE_ERRORS;

/** Seconds the ingress's 503 (a service not answering) tells the caller to wait. */
export const EDGE_RETRY_AFTER_SECONDS = 5;

/** The body of the ingress's own error of `status`, and the Retry-After of its 503. */
export function edgeReplyOf(status: EdgeStatus): { error: EdgeError; retryAfterSeconds?: number } {
  return { error: EDGE_ERRORS[status], ...(status === 503 && { retryAfterSeconds: EDGE_RETRY_AFTER_SECONDS }) };
}
