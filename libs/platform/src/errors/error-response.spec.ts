import {
  BadGatewayException,
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  ImATeapotException,
  InternalServerErrorException,
  MethodNotAllowedException,
  NotFoundException,
  PayloadTooLargeException,
  PreconditionFailedException,
  ServiceUnavailableException,
  UnauthorizedException,
  UnprocessableEntityException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { errorBody } from '@lx/contracts';
import { DependencyUnavailableError, RateLimitExceededError, ResourceNotFoundError } from '@lx/domain';
import { AuthenticationError } from '../auth/authentication.errors';
import { isDatabaseUnavailable, toErrorResponse } from './error-response';

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

  it.each([
    ['a wait for a pooled connection past its timeout', new Error('timeout exceeded when trying to connect')],
    ['a connection not established in time', new Error('Connection terminated due to connection timeout')],
    ['too many connections', Object.assign(new Error('sorry, too many clients already'), { code: '53300' })],
    ['a server starting up', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
  ])('given %s, when mapped, then a 503 with Retry-After that reveals only an error id', (_, error) => {
    const response = toErrorResponse(error);
    expect(response).toEqual({
      status: 503,
      body: {
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'The database cannot be reached right now; retry shortly',
          details: { errorId: response.errorId },
        },
      },
      headers: { 'retry-after': '1' },
      errorId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    [
      'a refused socket (Kafka and the object store raise it too)',
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }),
    ],
    [
      'a connection lost while a statement ran (its effect unknown)',
      Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined }),
    ],
    [
      'a statement cancelled',
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
    ],
    [
      'a server shutting down under a statement',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ],
    ['a numeric code', Object.assign(new Error('timeout'), { code: 53300 })],
    ['a plain object with the message', { message: 'timeout exceeded when trying to connect' }],
    ['nothing', undefined],
  ])('given %s, then it is not a database refusal: a 500', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(toErrorResponse(error).status).toBe(500);
  });

  it.each([
    [new BadRequestException('Body is not valid JSON'), 'INVALID_REQUEST'],
    [new UnauthorizedException('No principal'), 'UNAUTHORIZED'],
    [new ForbiddenException('Forbidden resource'), 'FORBIDDEN'],
    [new NotFoundException('Location not found'), 'RESOURCE_NOT_FOUND'],
    [new MethodNotAllowedException('Only GET here'), 'METHOD_NOT_ALLOWED'],
    [new ConflictException('Already exists'), 'CONFLICT'],
    [new PreconditionFailedException('Stale version'), 'PRECONDITION_FAILED'],
    [new PayloadTooLargeException('Request body is too large'), 'PAYLOAD_TOO_LARGE'],
    [new UnsupportedMediaTypeException('Unsupported Media Type: text/plain'), 'UNSUPPORTED_MEDIA_TYPE'],
    [new HttpException('URI Too Long', 414), 'URI_TOO_LONG'],
    [new HttpException('Too many requests', 429), 'RATE_LIMIT_EXCEEDED'],
    [new HttpException('The object store is down', 503), 'SERVICE_UNAVAILABLE'],
    [new InternalServerErrorException('Broken'), 'INTERNAL_ERROR'],
    [new BadGatewayException('Upstream failed'), 'INTERNAL_ERROR'],
    [new ImATeapotException('Short and stout'), 'INVALID_REQUEST'],
    [new UnprocessableEntityException('Cannot process'), 'INVALID_REQUEST'],
  ])(
    'given the HTTP exception %p, when mapped, then its status and message come with the code %s',
    (exception, code) => {
      expect(toErrorResponse(exception)).toEqual({
        status: exception.getStatus(),
        body: { error: { code, message: exception.message } },
        headers: {},
      });
    },
  );

  it('given an HTTP exception that already carries the spec error body, when mapped, then the body is sent as it is', () => {
    const spec = errorBody('CONFLICT', 'The location group is in use', { groupId: 'g-1' });
    expect(toErrorResponse(new HttpException(spec, 409))).toEqual({ status: 409, body: spec, headers: {} });
  });

  it.each([
    ['the error name Nest puts there', { statusCode: 400, message: 'Bad Request', error: 'Bad Request' }],
    ['a null error', { error: null }],
    ['an error without a message', { error: { code: 'CONFLICT' } }],
    ['an error without a code', { error: { message: 'Conflict' } }],
  ])('given an HTTP exception whose body has %s, when mapped, then the spec body is built from it', (_, response) => {
    const exception = new HttpException(response, 400);
    expect(toErrorResponse(exception)).toEqual({
      status: 400,
      body: { error: { code: 'INVALID_REQUEST', message: exception.message } },
      headers: {},
    });
  });

  it('given a failed readiness check (@nestjs/terminus), when mapped, then the 503 carries the report as details', () => {
    // The body HealthCheckService throws with ServiceUnavailableException when a dependency is down.
    const report = {
      status: 'error',
      info: {},
      error: { database: { status: 'down', message: 'connect ECONNREFUSED' } },
      details: { database: { status: 'down', message: 'connect ECONNREFUSED' } },
    };
    expect(toErrorResponse(new ServiceUnavailableException(report))).toEqual({
      status: 503,
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'Service is not ready', details: report } },
      headers: {},
    });
  });

  it('given a 503 of the code (not a readiness report), when mapped, then its own message is kept', () => {
    const exception = new ServiceUnavailableException('Access tokens cannot be verified right now');
    expect(toErrorResponse(exception)).toEqual({
      status: 503,
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'Access tokens cannot be verified right now' } },
      headers: {},
    });
  });

  it('given a dependency that is unavailable (typed), when mapped, then the same 503 as the HTTP exception it replaced', () => {
    const message = 'Access tokens cannot be verified right now';
    expect(toErrorResponse(new DependencyUnavailableError(message))).toStrictEqual(
      toErrorResponse(new ServiceUnavailableException(message)),
    );
  });

  it('given a 503 whose body only has a status of "error" (no per-dependency details), then it is not taken for a report', () => {
    const exception = new ServiceUnavailableException({ status: 'error', message: 'Maintenance' });
    expect(toErrorResponse(exception).body.error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: exception.message });
  });

  it('given a 503 whose body has details but is not the report of @nestjs/terminus, then its own message is kept', () => {
    const exception = new ServiceUnavailableException({ message: 'Maintenance', details: 'until 10:00 UTC' });
    expect(toErrorResponse(exception).body.error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: 'Maintenance' });
  });

  it('given an HTTP exception without a body (null), when mapped, then the code of its status and its own message', () => {
    const exception = new HttpException(null as unknown as string, 503);
    expect(toErrorResponse(exception)).toEqual({
      status: 503,
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: exception.message } },
      headers: {},
    });
  });

  it.each([
    ['a 404 whose message only mentions a route', new NotFoundException('Upstream said: Cannot GET /x')],
    ['another status saying "Cannot <METHOD>"', new ConflictException('Cannot PUT /locations/1 while it is imported')],
  ])('given %s, when mapped, then the message is kept as it is', (_, exception) => {
    expect(toErrorResponse(exception).body.error.message).toBe(exception.message);
  });
});
