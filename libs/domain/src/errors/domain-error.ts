import type { ErrorCode, ResourceType, ServiceabilityStatus, ValidationIssue } from '@lx/contracts';

/**
 * A broken business rule with a stable code from ERROR_CODES; each transport maps the code to its status and body.
 * `headers` are what the caller needs besides the body to act on it (Retry-After, a WWW-Authenticate challenge); the
 * HTTP edge sends them as response headers, by lower-case name.
 */
export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
  declare readonly details?: Record<string, unknown>;
  readonly #headers: Readonly<Record<string, string>>;

  protected constructor(message: string, details?: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    if (details !== undefined) this.details = details;
    this.#headers = headers;
  }

  get headers(): Readonly<Record<string, string>> {
    return this.#headers;
  }
}

/** Codes a validation failure may carry: the general one and the more specific ones of the spec and OAF-100. */
export type ValidationErrorCode = Extract<
  ErrorCode,
  | 'VALIDATION_ERROR'
  | 'INVALID_REQUEST'
  | 'INVALID_COORDINATES'
  | 'INVALID_ADDRESS_FORMAT'
  | 'MISSING_LOCATION_DATA'
  | 'INVALID_FORMAT'
  | 'INVALID_DATE_RANGE'
  | 'INVALID_STATUS'
  | 'INVALID_LIMIT'
  | 'INVALID_OFFSET'
  | 'INVALID_FILTER'
>;

/** Input broke one or more rules; details.issues lists every one with its field path. */
export class ValidationFailedError extends DomainError {
  readonly code: ValidationErrorCode;
  declare readonly details: { issues: ValidationIssue[] };

  constructor(issues: ValidationIssue[], code: ValidationErrorCode = 'VALIDATION_ERROR') {
    super(issues.map((issue) => issue.message).join('; ') || 'invalid input', { issues });
    this.code = code;
  }
}

/** The addressed resource does not exist; details name resourceType and resourceId, as GET /locations/{id} promises. */
export class ResourceNotFoundError extends DomainError {
  readonly code = 'RESOURCE_NOT_FOUND';
  declare readonly details: { resourceType: ResourceType; resourceId: string };

  constructor(resourceType: ResourceType, resourceId: string) {
    super(`${resourceType} ${resourceId} was not found`, { resourceType, resourceId });
  }
}

/** The serviceability status may not move from `from` to `to`; `undefined` means the location has no serviceability. */
export class InvalidStatusTransitionError extends DomainError {
  readonly code = 'INVALID_STATUS_TRANSITION';
  declare readonly details: { from: ServiceabilityStatus | null; to: ServiceabilityStatus | null };

  constructor(from: ServiceabilityStatus | undefined, to: ServiceabilityStatus | undefined) {
    super(
      to === undefined
        ? `serviceability status ${from ?? 'none'} cannot be removed`
        : `serviceability status cannot change from ${from ?? 'none'} to ${to}`,
      { from: from ?? null, to: to ?? null },
    );
  }
}

/** The request is malformed in a way no field rule covers, such as an invalid UUID in a path. */
export class InvalidRequestError extends DomainError {
  readonly code = 'INVALID_REQUEST';

  constructor(message: string, details?: Record<string, unknown>) {
    super(message, details);
  }
}

/** A write names a location group or address group that does not exist; details.issues name each field. */
export class InvalidGroupReferenceError extends DomainError {
  readonly code = 'INVALID_GROUP_REFERENCE';
  declare readonly details: { issues: ValidationIssue[] };

  constructor(issues: ValidationIssue[]) {
    super(issues.map((issue) => issue.message).join('; '), { issues });
  }
}

/** The write cannot apply to the resource in its current state, such as deleting a group that locations still use. */
export class ConflictError extends DomainError {
  readonly code = 'CONFLICT';

  constructor(message: string, details?: Record<string, unknown>) {
    super(message, details);
  }
}

/**
 * The caller sent more requests than its quota allows in the current window; Retry-After (whole seconds, at least 1)
 * says when the next one can succeed.
 */
export class RateLimitExceededError extends DomainError {
  readonly code = 'RATE_LIMIT_EXCEEDED';
  declare readonly details: { retryAfterSeconds: number };

  /** @param headers further fields of the reply, such as the RateLimit fields of the policy that refused it. */
  constructor(message: string, retryAfterSeconds: number, headers: Readonly<Record<string, string>> = {}) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(message, { retryAfterSeconds: seconds }, { ...headers, 'retry-after': String(seconds) });
  }
}

/**
 * The caller's If-Match names another version than the current one, so applying the write would silently overwrite a
 * change the caller has not seen. `current` is `null` when the resource does not exist.
 */
export class VersionMismatchError extends DomainError {
  readonly code = 'PRECONDITION_FAILED';
  declare readonly details: { expected: string; current: number | null };

  constructor(expected: string, current: number | null) {
    super(
      current === null
        ? `If-Match ${expected} does not match: the resource does not exist`
        : `If-Match ${expected} does not match the current version ${current}`,
      { expected, current },
    );
  }
}

/** An export would hold more locations than the configured maximum; details give both numbers. */
export class ExportSizeExceededError extends DomainError {
  readonly code = 'EXPORT_SIZE_EXCEEDED';
  declare readonly details: { matchingLocations: number; maxLocations: number };

  constructor(matchingLocations: number, maxLocations: number) {
    super(
      `the export would hold ${matchingLocations} locations, more than the limit of ${maxLocations}; narrow it with modifiedSince or filters.locationGroupId`,
      { matchingLocations, maxLocations },
    );
  }
}

/**
 * Something the request depends on cannot answer right now (a peer service, the key set that verifies tokens): 503
 * SERVICE_UNAVAILABLE. Nothing is known to be wrong with the request, so the caller retries later.
 */
export class DependencyUnavailableError extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';

  constructor(message: string, details?: Record<string, unknown>) {
    super(message, details);
  }
}
