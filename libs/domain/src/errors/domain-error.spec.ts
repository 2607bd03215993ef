import {
  ConflictError,
  DependencyUnavailableError,
  DomainError,
  ExportSizeExceededError,
  InvalidGroupReferenceError,
  InvalidRequestError,
  InvalidStatusTransitionError,
  RateLimitExceededError,
  ResourceNotFoundError,
  ValidationFailedError,
  VersionMismatchError,
} from './domain-error';

describe('ValidationFailedError', () => {
  const issues = [
    { field: 'coordinates.latitude', rule: 'range', message: 'coordinates.latitude must be between -90 and 90' },
    { field: 'foo', rule: 'unknownField', message: 'unknown field "foo"' },
  ];

  it('given issues and no code, when created, then it is a VALIDATION_ERROR listing the issues', () => {
    const error = new ValidationFailedError(issues);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ValidationFailedError');
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual({ issues });
    expect(error.message).toBe('coordinates.latitude must be between -90 and 90; unknown field "foo"');
  });

  it('given no issues, when created, then the message is a generic invalid input', () => {
    expect(new ValidationFailedError([])).toMatchObject({ message: 'invalid input', details: { issues: [] } });
  });

  it('given a specific code, when created, then it carries that code', () => {
    expect(new ValidationFailedError(issues.slice(0, 1), 'INVALID_COORDINATES').code).toBe('INVALID_COORDINATES');
  });
});

describe('RateLimitExceededError', () => {
  it.each([
    [30, '30'],
    [0.2, '1'],
    [0, '1'],
    [12.1, '13'],
  ])('given %p seconds to wait, when created, then Retry-After is %s whole seconds', (seconds, header) => {
    const error = new RateLimitExceededError('too many exports', seconds);
    expect(error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(error.headers).toEqual({ 'retry-after': header });
    expect(error.details).toEqual({ retryAfterSeconds: Number(header) });
  });

  it('given an error without headers, when read, then it has none', () => {
    expect(new ConflictError('busy').headers).toEqual({});
  });
});

describe('ResourceNotFoundError', () => {
  it('given a resource type and id, when created, then RESOURCE_NOT_FOUND names both in details', () => {
    const error = new ResourceNotFoundError('location', '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11');
    expect(error.code).toBe('RESOURCE_NOT_FOUND');
    expect(error.name).toBe('ResourceNotFoundError');
    expect(error.message).toBe('location 0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11 was not found');
    expect(error.details).toEqual({ resourceType: 'location', resourceId: '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11' });
  });
});

describe('InvalidStatusTransitionError', () => {
  it('given two statuses, when created, then INVALID_STATUS_TRANSITION names both', () => {
    const error = new InvalidStatusTransitionError('CANCELLED', 'ACTIVE');
    expect(error.code).toBe('INVALID_STATUS_TRANSITION');
    expect(error.message).toBe('serviceability status cannot change from CANCELLED to ACTIVE');
    expect(error.details).toEqual({ from: 'CANCELLED', to: 'ACTIVE' });
  });

  it('given a removal, when created, then the message says the status cannot be removed', () => {
    const error = new InvalidStatusTransitionError('RETIRED', undefined);
    expect(error.message).toBe('serviceability status RETIRED cannot be removed');
    expect(error.details).toEqual({ from: 'RETIRED', to: null });
  });

  it('given no status before, when created, then the message calls it none', () => {
    expect(new InvalidStatusTransitionError(undefined, 'ACTIVE').message).toBe(
      'serviceability status cannot change from none to ACTIVE',
    );
    expect(new InvalidStatusTransitionError(undefined, undefined).message).toBe(
      'serviceability status none cannot be removed',
    );
  });
});

describe('InvalidRequestError', () => {
  it('given a message and details, when created, then INVALID_REQUEST carries both', () => {
    const error = new InvalidRequestError('id must be a UUID', { parameter: 'id' });
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toBe('id must be a UUID');
    expect(error.details).toEqual({ parameter: 'id' });
  });

  it('given no details, when created, then details is absent', () => {
    expect('details' in new InvalidRequestError('bad')).toBe(false);
  });
});

describe('InvalidGroupReferenceError', () => {
  it('given an issue per field, when created, then INVALID_GROUP_REFERENCE lists them', () => {
    const issues = [{ field: 'locationGroupId', rule: 'groupExists', message: 'locationGroupId names no group' }];
    const error = new InvalidGroupReferenceError(issues);
    expect(error).toMatchObject({ code: 'INVALID_GROUP_REFERENCE', message: 'locationGroupId names no group' });
    expect(error.details).toEqual({ issues });
  });

  it('given two issues, when created, then the message joins both with a semicolon', () => {
    const issues = [
      { field: 'locationGroupId', rule: 'groupExists', message: 'locationGroupId names no location group' },
      {
        field: 'address.addressGroupId',
        rule: 'groupExists',
        message: 'address.addressGroupId names no address group',
      },
    ];
    expect(new InvalidGroupReferenceError(issues).message).toBe(
      'locationGroupId names no location group; address.addressGroupId names no address group',
    );
  });
});

describe('ConflictError', () => {
  it('given a message and details, when created, then it is a CONFLICT carrying both', () => {
    expect(new ConflictError('in use', { resourceId: 'x' })).toMatchObject({
      code: 'CONFLICT',
      message: 'in use',
      details: { resourceId: 'x' },
    });
  });
});

describe('VersionMismatchError', () => {
  it('given an expected and a current version, when created, then PRECONDITION_FAILED names both', () => {
    expect(new VersionMismatchError('"2"', 3)).toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: 'If-Match "2" does not match the current version 3',
      details: { expected: '"2"', current: 3 },
    });
  });

  it('given no current resource, when created, then the message says it does not exist', () => {
    expect(new VersionMismatchError('*', null).message).toBe('If-Match * does not match: the resource does not exist');
  });
});

describe('ExportSizeExceededError', () => {
  it('given the matching count and the limit, when created, then EXPORT_SIZE_EXCEEDED carries both in details', () => {
    const error = new ExportSizeExceededError(1_000_001, 1_000_000);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.name).toBe('ExportSizeExceededError');
    expect(error.code).toBe('EXPORT_SIZE_EXCEEDED');
    expect(error.details).toStrictEqual({ matchingLocations: 1_000_001, maxLocations: 1_000_000 });
    expect(error.headers).toEqual({});
  });

  it('given the matching count and the limit, when created, then the message names both and how to narrow', () => {
    expect(new ExportSizeExceededError(2500, 2000).message).toBe(
      'the export would hold 2500 locations, more than the limit of 2000; narrow it with modifiedSince or filters.locationGroupId',
    );
  });
});

describe('DependencyUnavailableError', () => {
  it('given a message, when created, then SERVICE_UNAVAILABLE with that message and no details or headers', () => {
    const error = new DependencyUnavailableError('Access tokens cannot be verified right now');
    expect(error).toBeInstanceOf(DomainError);
    expect(error.name).toBe('DependencyUnavailableError');
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.message).toBe('Access tokens cannot be verified right now');
    expect('details' in error).toBe(false);
    expect(error.headers).toEqual({});
  });
});
