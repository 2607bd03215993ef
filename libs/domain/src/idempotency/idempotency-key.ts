import { ConflictError, ValidationFailedError } from '../errors/domain-error';

/** An Idempotency-Key names one request of its client for this long; after it, the key may name a new request. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/** Printable ASCII, as the IETF Idempotency-Key draft suggests, and short enough to index. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Throws VALIDATION_ERROR naming the header when an Idempotency-Key is not 1 to 255 printable ASCII characters. */
export function assertIdempotencyKey(key: string): void {
  if (IDEMPOTENCY_KEY.test(key)) return;
  throw new ValidationFailedError([
    {
      field: 'Idempotency-Key',
      rule: 'format',
      message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
    },
  ]);
}

/**
 * A request made again under an Idempotency-Key: the same body (compared by `requestHash`) answers the first reply
 * again; another body is 409 CONFLICT, naming what the key made (`made`, e.g. `{requestId}` or `{locationId}`).
 */
export function assertSameRequest(storedHash: string, requestHash: string, made: Record<string, unknown>): void {
  if (storedHash === requestHash) return;
  throw new ConflictError('this Idempotency-Key was used with another request body within the last 24 hours', made);
}

/**
 * JSON with every object's keys in code-point order, so that two bodies that differ only in key order (which JSON
 * does not give a meaning) read as the same request.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (member === null || typeof member !== 'object' || Array.isArray(member)) return member;
    const object = member as Record<string, unknown>;
    // sort() without a comparator orders strings by UTF-16 code units, as `<` does.
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .map((key) => [key, object[key]]),
    );
  });
}
