import { issuesOf } from '../testing/fixtures';
import { errorBody, errorBodySchema, resourceNotFoundDetailsSchema, validationErrorDetailsSchema } from './error-body';

describe('errorBodySchema', () => {
  it('given code and message, when validated, then the body is accepted', () => {
    expect(issuesOf(errorBodySchema, { error: { code: 'UNAUTHORIZED', message: 'Missing bearer token' } })).toEqual([]);
  });

  it('given a flat body, when validated, then error is required and the flat fields are unknown', () => {
    expect(issuesOf(errorBodySchema, { code: 'UNAUTHORIZED', message: 'x' })).toEqual([
      { field: 'error', rule: 'required', message: 'error is required' },
      { field: 'code', rule: 'unknownField', message: 'unknown field "code"' },
      { field: 'message', rule: 'unknownField', message: 'unknown field "message"' },
    ]);
  });

  it('given details that are not an object, when validated, then details must be an object', () => {
    expect(issuesOf(errorBodySchema, { error: { code: 'INVALID_REQUEST', message: 'x', details: 'id' } })).toEqual([
      { field: 'error.details', rule: 'type', message: 'error.details must be an object' },
    ]);
  });
});

describe('errorBody', () => {
  it('given no details, when built, then details is absent', () => {
    expect(errorBody('UNAUTHORIZED', 'Missing bearer token')).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'Missing bearer token' },
    });
    expect('details' in errorBody('UNAUTHORIZED', 'x').error).toBe(false);
  });

  it('given details, when built, then the body validates', () => {
    const body = errorBody('RESOURCE_NOT_FOUND', 'location 42 was not found', {
      resourceType: 'location',
      resourceId: '42',
    });
    expect(issuesOf(errorBodySchema, body)).toEqual([]);
  });
});

describe('error details', () => {
  it('given resourceType and resourceId, when validated, then RESOURCE_NOT_FOUND details are accepted', () => {
    expect(issuesOf(resourceNotFoundDetailsSchema, { resourceType: 'location', resourceId: 'abc' })).toEqual([]);
  });

  it('given an unknown resourceType, when validated, then the kinds are listed', () => {
    expect(issuesOf(resourceNotFoundDetailsSchema, { resourceType: 'Location', resourceId: 'abc' })).toEqual([
      {
        field: 'resourceType',
        rule: 'enum',
        message:
          'resourceType must be one of location, locationGroup, addressGroup, export, client, delivery, endpoint, signingKey',
      },
    ]);
  });

  it('given no issues, when validation details are validated, then at least one issue is required', () => {
    expect(issuesOf(validationErrorDetailsSchema, { issues: [] })).toEqual([
      { field: 'issues', rule: 'min', message: 'issues must contain at least 1 item' },
    ]);
  });
});
