import { EDGE_ERRORS, EDGE_RETRY_AFTER_SECONDS, type EdgeStatus, edgeReplyOf } from './edge-errors';
import { ERROR_CODES } from './error-codes';

describe('edgeReplyOf', () => {
  it.each(Object.keys(EDGE_ERRORS).map(Number) as EdgeStatus[])('given %p, then its body', (status) => {
    expect(edgeReplyOf(status).error).toBe(EDGE_ERRORS[status]);
  });

  it('given 503 (a service not answering), then Retry-After 5; any other status, none', () => {
    expect(edgeReplyOf(503)).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: 'The service for this path is not available' },
      retryAfterSeconds: EDGE_RETRY_AFTER_SECONDS,
    });
    expect(EDGE_RETRY_AFTER_SECONDS).toBe(5);
    for (const status of Object.keys(EDGE_ERRORS).map(Number) as EdgeStatus[]) {
      if (status !== 503) expect(edgeReplyOf(status)).toEqual({ error: EDGE_ERRORS[status] });
    }
  });

  it('given the table, then every code is an error code of the API, for the statuses nginx answers itself', () => {
    for (const error of Object.values(EDGE_ERRORS)) expect(Object.keys(ERROR_CODES)).toContain(error.code);
    expect(Object.keys(EDGE_ERRORS)).toEqual(['400', '404', '405', '411', '413', '414', '500', '501', '503', '505']);
    expect(EDGE_ERRORS[404]).toEqual({ code: 'RESOURCE_NOT_FOUND', message: 'No route for this path' });
    expect(EDGE_ERRORS[500]).toEqual({ code: 'INTERNAL_ERROR', message: 'The ingress failed to handle the request' });
  });
});
