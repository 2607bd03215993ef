import { z } from 'zod';

/** What an error code means and the HTTP status it travels with; `null` for codes that never form an HTTP reply. */
export interface ErrorCodeSpec {
  readonly httpStatus: number | null;
  readonly description: string;
}

/**
 * Every error code the service uses: the spec's codes plus the OAF-100 ones. Where they disagree the spec wins:
 * 401 is UNAUTHORIZED (not AUTHENTICATION_FAILED), and a running export answers 200 PENDING, so OAF-100's
 * EXPORT_NOT_READY is not used.
 */
export const ERROR_CODES = {
  INVALID_REQUEST: { httpStatus: 400, description: 'Malformed input, such as an invalid UUID in the path' },
  VALIDATION_ERROR: { httpStatus: 400, description: 'A field breaks a rule; details.issues name each field' },
  INVALID_COORDINATES: { httpStatus: 400, description: 'Coordinates are missing a value or out of range' },
  INVALID_ADDRESS_FORMAT: { httpStatus: 400, description: 'The address misses a required part or has a malformed one' },
  MISSING_LOCATION_DATA: { httpStatus: 400, description: 'A location has neither address nor coordinates' },
  INVALID_STATUS_TRANSITION: { httpStatus: 400, description: 'The serviceability status may not change this way' },
  INVALID_GROUP_REFERENCE: { httpStatus: 400, description: 'A locationGroupId or addressGroupId names no group' },
  INVALID_FORMAT: { httpStatus: 400, description: 'The export format is not json or csv' },
  INVALID_DATE_RANGE: {
    httpStatus: 400,
    description: 'modifiedSince (or modifiedBefore) is not a valid UTC date-time',
  },
  EXPORT_SIZE_EXCEEDED: { httpStatus: 400, description: 'The export would exceed the configured size limit' },
  INVALID_STATUS: { httpStatus: 400, description: 'A status query value is not a serviceability status' },
  INVALID_LIMIT: { httpStatus: 400, description: 'limit is not an integer from 1 to 1000' },
  INVALID_OFFSET: { httpStatus: 400, description: 'offset is not an integer of 0 or more' },
  INVALID_FILTER: { httpStatus: 400, description: 'A query filter has an unknown name or a bad value' },
  DIGEST_NODE_TOO_LARGE: {
    httpStatus: 400,
    description: 'A digest node holds too many resources to list its entries; ask for a longer prefix',
  },
  UNAUTHORIZED: { httpStatus: 401, description: 'The bearer token or the client credentials are missing or invalid' },
  FORBIDDEN: { httpStatus: 403, description: 'The token lacks the scope the operation needs' },
  RESOURCE_NOT_FOUND: {
    httpStatus: 404,
    description: 'Nothing exists at this id; details name resourceType and resourceId',
  },
  METHOD_NOT_ALLOWED: { httpStatus: 405, description: 'The path does not support this HTTP method' },
  REQUEST_TIMEOUT: {
    httpStatus: 408,
    description: 'The request was not received whole in time (HTTP_REQUEST_TIMEOUT_MS); send it again',
  },
  CONFLICT: {
    httpStatus: 409,
    description: 'The request conflicts with the current state, e.g. a reused Idempotency-Key',
  },
  CHANGE_CURSOR_EXPIRED: {
    httpStatus: 410,
    description:
      'The change feed cursor is older than the retention or from an earlier generation of the feed: take a full export',
  },
  PRECONDITION_FAILED: { httpStatus: 412, description: 'If-Match does not match the current ETag' },
  PAYLOAD_TOO_LARGE: { httpStatus: 413, description: 'The request body is larger than allowed' },
  URI_TOO_LONG: { httpStatus: 414, description: 'The request line is longer than the ingress accepts' },
  UNSUPPORTED_MEDIA_TYPE: { httpStatus: 415, description: 'The Content-Type is not one the endpoint accepts' },
  RATE_LIMIT_EXCEEDED: { httpStatus: 429, description: 'Too many requests in the quota window; see Retry-After' },
  INTERNAL_ERROR: { httpStatus: 500, description: 'Unexpected failure; details.errorId points to the server log' },
  EXPORT_GENERATION_FAILED: { httpStatus: 500, description: 'The export could not be generated (FAILED notification)' },
  SERVICE_UNAVAILABLE: { httpStatus: 503, description: 'A dependency is down; retry later' },
  WEBHOOK_DELIVERY_FAILED: {
    httpStatus: null,
    description: 'A webhook delivery gave up after its retries; recorded operator-side, never an HTTP reply',
  },
} as const satisfies Record<string, ErrorCodeSpec>;

/** A machine-readable error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Every error code, in table order. */
export const ALL_ERROR_CODES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** One of the known error codes. */
export const errorCodeSchema = z.enum(ALL_ERROR_CODES);

/** The HTTP status for a code; a code with no HTTP meaning that still reaches an HTTP edge answers 500. */
export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].httpStatus ?? 500;
}
