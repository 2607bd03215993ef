import { ALL_ERROR_CODES, ERROR_CODES, errorCodeSchema, httpStatusOf, type ErrorCode } from './error-codes';

describe('ERROR_CODES', () => {
  it.each<[ErrorCode, number]>([
    ['INVALID_FORMAT', 400],
    ['INVALID_DATE_RANGE', 400],
    ['EXPORT_SIZE_EXCEEDED', 400],
    ['RESOURCE_NOT_FOUND', 404],
    ['UNAUTHORIZED', 401],
    ['INVALID_REQUEST', 400],
    ['EXPORT_GENERATION_FAILED', 500],
  ])('given the spec code %s, when looked up, then its status is %d', (code, status) => {
    expect(ERROR_CODES[code].httpStatus).toBe(status);
  });

  it.each<[ErrorCode, number]>([
    ['VALIDATION_ERROR', 400],
    ['FORBIDDEN', 403],
    ['METHOD_NOT_ALLOWED', 405],
    ['CONFLICT', 409],
    ['INTERNAL_ERROR', 500],
    ['SERVICE_UNAVAILABLE', 503],
    ['INVALID_COORDINATES', 400],
    ['INVALID_ADDRESS_FORMAT', 400],
    ['MISSING_LOCATION_DATA', 400],
    ['INVALID_STATUS_TRANSITION', 400],
    ['INVALID_GROUP_REFERENCE', 400],
    ['INVALID_STATUS', 400],
    ['INVALID_LIMIT', 400],
    ['INVALID_OFFSET', 400],
    ['INVALID_FILTER', 400],
  ])('given the OAF-100 code %s, when looked up, then its status is %d', (code, status) => {
    expect(ERROR_CODES[code].httpStatus).toBe(status);
  });

  it.each<[ErrorCode, number]>([
    ['REQUEST_TIMEOUT', 408],
    ['CHANGE_CURSOR_EXPIRED', 410],
    ['PRECONDITION_FAILED', 412],
    ['PAYLOAD_TOO_LARGE', 413],
    ['URI_TOO_LONG', 414],
    ['UNSUPPORTED_MEDIA_TYPE', 415],
    ['RATE_LIMIT_EXCEEDED', 429],
  ])('given the HTTP-edge code %s, when looked up, then its status is %d', (code, status) => {
    expect(ERROR_CODES[code].httpStatus).toBe(status);
  });

  it('given the conflicts with OAF-100, when the table is read, then the spec wins', () => {
    expect(ALL_ERROR_CODES).not.toContain('AUTHENTICATION_FAILED');
    expect(ALL_ERROR_CODES).not.toContain('EXPORT_NOT_READY');
    expect(ALL_ERROR_CODES).not.toContain('NOT_MODIFIED');
  });

  it('given every code, when checked, then it is UPPER_SNAKE_CASE with a description', () => {
    for (const code of ALL_ERROR_CODES) {
      expect(code).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
      expect(ERROR_CODES[code].description.length).toBeGreaterThan(0);
    }
  });
});

describe('httpStatusOf', () => {
  it('given a code with a status, when mapped, then returns it', () => {
    expect(httpStatusOf('RESOURCE_NOT_FOUND')).toBe(404);
  });

  it('given the operator-side WEBHOOK_DELIVERY_FAILED, when mapped, then falls back to 500', () => {
    expect(ERROR_CODES.WEBHOOK_DELIVERY_FAILED.httpStatus).toBeNull();
    expect(httpStatusOf('WEBHOOK_DELIVERY_FAILED')).toBe(500);
  });
});

describe('errorCodeSchema', () => {
  it('given a known code, when parsed, then it is accepted', () => {
    expect(errorCodeSchema.safeParse('UNAUTHORIZED').success).toBe(true);
  });

  it('given an unknown code, when parsed, then it is rejected', () => {
    expect(errorCodeSchema.safeParse('AUTHENTICATION_FAILED').success).toBe(false);
  });
});
