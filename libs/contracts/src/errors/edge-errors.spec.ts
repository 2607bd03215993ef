import { EDGE_ERRORS, EDGE_RETRY_AFTER_SECONDS, edgeReplyOf } from './edge-errors';
import { ERROR_CODES } from './error-codes';

describe('edgeReplyOf', () => {
  it.each(Object.keys(EDGE_ERRORS).map(Number))('given %p, then that status with its body', (status) => {
    const reply = edgeReplyOf(status);
    expect(reply.status).toBe(status);
    expect(reply.error).toBe(EDGE_ERRORS[status as keyof typeof EDGE_ERRORS]);
  });

  it.each([502, 503, 504])('given %p (a service not answering), then 503 with Retry-After', (status) => {
    expect(edgeReplyOf(status)).toEqual({
      status: 503,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'The service for this path is not available' },
      retryAfterSeconds: EDGE_RETRY_AFTER_SECONDS,
    });
    expect(EDGE_RETRY_AFTER_SECONDS).toBe(5);
  });

  it('given 494 (nginx: a header too large), then 400 as nginx sends it', () => {
    expect(edgeReplyOf(494)).toEqual({ status: 400, error: EDGE_ERRORS[400] });
  });

  it.each([200, 401, 599, 0, 402])('given %p (no error the ingress names), then its own failure, 500', (status) => {
    expect(edgeReplyOf(status)).toEqual({
      status: 500,
      error: { code: 'INTERNAL_ERROR', message: 'The ingress failed to handle the request' },
    });
  });

  it('given the table, then every code is an error code of the API and no other status has Retry-After', () => {
    for (const [status, error] of Object.entries(EDGE_ERRORS)) {
      expect(Object.keys(ERROR_CODES)).toContain(error.code);
      if (status !== '503') expect(edgeReplyOf(Number(status))).not.toHaveProperty('retryAfterSeconds');
    }
    expect(Object.keys(EDGE_ERRORS)).toEqual(['400', '404', '405', '411', '413', '414', '500', '501', '503', '505']);
  });
});
