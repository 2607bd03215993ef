import {
  API_CONTENT_SECURITY_POLICY,
  API_SECURITY_HEADERS,
  DOCUMENTATION_CONTENT_SECURITY_POLICY,
} from './security-headers';

/** A policy's directives by name, each with its sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/);
      return [name!, sources];
    }),
  );
}

describe('the Content-Security-Policies', () => {
  it('lets an API reply load, run, submit and be framed by nothing', () => {
    const policy = directives(API_CONTENT_SECURITY_POLICY);
    for (const name of ['default-src', 'frame-ancestors', 'base-uri', 'form-action']) {
      expect(policy.get(name)).toEqual(["'none'"]);
    }
    expect(API_SECURITY_HEADERS['content-security-policy']).toBe(API_CONTENT_SECURITY_POLICY);
  });

  it('lets Swagger UI load its own files, call its own origin and nothing else: no inline script, framed by nothing', () => {
    const policy = directives(DOCUMENTATION_CONTENT_SECURITY_POLICY);
    expect(Object.fromEntries(policy)).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'frame-ancestors': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
    });
  });

  it('never lets a body be sniffed into another type, and leaks no URL to another site', () => {
    expect(API_SECURITY_HEADERS).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
  });
});
