import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type KeyLike, SignJWT } from 'jose';
import { REVOCATIONS_PATH } from '@lx/contracts';

/**
 * A stand-in for the auth service in other services' tests: serves a JWKS (and an empty revocation list) on loopback and signs
 * access tokens with its key, so a service under test verifies real tokens through its real
 * AUTH_JWKS_URL path. Point the service's AUTH_JWKS_URL at `jwksUrl` (`env` holds all three settings).
 * Its issuer is its own base URL unless one is given, as the auth service's is the API's public base URL.
 */
export interface TestTokenIssuer {
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** The environment a service needs to trust this issuer. */
  env: { AUTH_JWKS_URL: string; AUTH_ISSUER: string; AUTH_AUDIENCE: string };
  /** A token for `clientId` (default `test-client`) with `scopes`; `kind` is its `client_kind` claim (none by default). */
  token(options?: { clientId?: string; scopes?: string[]; kind?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestTokenIssuer(
  issuerUrl?: string,
  audience = 'location-exchange-api',
): Promise<TestTokenIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = `test-${randomUUID()}`;
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }] });
  // Revokes nothing: an empty revocation list at its path, the key set at any other.
  const revocations = JSON.stringify({ clients: [], signingKeys: [] });
  const server: Server = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(request.url === REVOCATIONS_PATH ? revocations : jwks);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const jwksUrl = `${baseUrl}/.well-known/jwks.json`;
  const issuer = issuerUrl ?? baseUrl;
  const key: KeyLike = privateKey;

  return {
    jwksUrl,
    issuer,
    audience,
    env: { AUTH_JWKS_URL: jwksUrl, AUTH_ISSUER: issuer, AUTH_AUDIENCE: audience },
    token: ({ clientId = 'test-client', scopes = ['locations:read'], kind } = {}) =>
      new SignJWT({ scope: scopes.join(' '), ...(kind !== undefined && { client_kind: kind }) })
        .setProtectedHeader({ alg: 'ES256', kid })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(clientId)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(key),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
