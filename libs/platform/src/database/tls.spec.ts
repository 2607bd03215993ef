import { tlsOptionsOf } from './tls';

describe('tlsOptionsOf (DATABASE_SSL_MODE as node-postgres options)', () => {
  const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

  it('given disable, then no TLS', () => {
    expect(tlsOptionsOf({ mode: 'disable' })).toBe(false);
  });

  it('given require, then TLS without checking the certificate (libpq: encrypted, the server not verified)', () => {
    expect(tlsOptionsOf({ mode: 'require' })).toEqual({ rejectUnauthorized: false });
  });

  it("given verify-full, then the certificate is checked against the CA given, or the system's without one", () => {
    expect(tlsOptionsOf({ mode: 'verify-full', ca: CA })).toEqual({ rejectUnauthorized: true, ca: CA });
    expect(tlsOptionsOf({ mode: 'verify-full' })).toEqual({ rejectUnauthorized: true });
  });
});
