import { NotFoundException } from '@nestjs/common';
import { RateLimitExceededError, ResourceNotFoundError } from '@lx/domain';
import { AuthenticationError } from '../auth/authentication.errors';
import { toErrorResponse } from './error-response';

describe('toErrorResponse', () => {
  it('given a typed error with headers, when mapped, then its status, body and headers are sent', () => {
    expect(toErrorResponse(new RateLimitExceededError('at most 10 exports per hour', 42))).toEqual({
      status: 429,
      body: {
        error: {
          code: 'RATE_LIMIT_EXCEEDED',
          message: 'at most 10 exports per hour',
          details: { retryAfterSeconds: 42 },
        },
      },
      headers: { 'retry-after': '42' },
    });
  });

  it('given an authentication error, when mapped, then the 401 carries its Bearer challenge', () => {
    const response = toErrorResponse(new AuthenticationError('Missing bearer token'));
    expect(response.status).toBe(401);
    expect(response.headers).toEqual({ 'www-authenticate': 'Bearer realm="location-exchange"' });
  });

  it('given a typed error without headers, when mapped, then no header is added', () => {
    const response = toErrorResponse(new ResourceNotFoundError('location', '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11'));
    expect(response.status).toBe(404);
    expect(response.headers).toEqual({});
    expect(response.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('given an HTTP exception from routing, when mapped, then it keeps its status in the spec body', () => {
    const response = toErrorResponse(new NotFoundException('Cannot GET /nowhere'));
    expect(response).toEqual({
      status: 404,
      body: { error: { code: 'RESOURCE_NOT_FOUND', message: 'No route for GET /nowhere' } },
      headers: {},
    });
  });

  it('given an unexpected error, when mapped, then a 500 reveals only an error id', () => {
    const response = toErrorResponse(new Error('connection string postgres://secret@db'));
    expect(response.status).toBe(500);
    expect(response.errorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body).toEqual({
      error: { code: 'INTERNAL_ERROR', message: 'Internal error', details: { errorId: response.errorId } },
    });
    expect(JSON.stringify(response)).not.toContain('secret');
  });
});
