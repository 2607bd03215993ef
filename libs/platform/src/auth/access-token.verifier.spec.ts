import { createServer } from 'node:http';
import { errors as joseErrors, generateKeyPair, SignJWT } from 'jose';
import { DependencyUnavailableError } from '@lx/domain';
import { JwksAccessTokenVerifier, JwtAccessTokenVerifier } from './access-token.verifier';
import { AuthenticationError } from './authentication.errors';

const config = {
  issuer: 'https://api.example.com',
  acceptedIssuers: [] as readonly string[],
  audience: 'location-exchange-api',
};

async function signed(claims: Record<string, unknown> = {}, omit: string[] = []) {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwt = new SignJWT({ scope: 'locations:read locations:write', ...claims })
    .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
    .setIssuer((claims.iss as string | undefined) ?? config.issuer)
    .setAudience(config.audience)
    .setIssuedAt()
    .setExpirationTime('5m');
  if (!omit.includes('sub')) jwt.setSubject('client-1');
  if (!omit.includes('jti')) jwt.setJti('token-1');
  return { token: await jwt.sign(privateKey), publicKey };
}

describe('JwtAccessTokenVerifier', () => {
  it('given an EdDSA token, when verified, then the principal carries its scopes', async () => {
    const { token, publicKey } = await signed();
    await expect(new JwtAccessTokenVerifier(config, async () => publicKey).verify(token)).resolves.toEqual({
      clientId: 'client-1',
      scopes: ['locations:read', 'locations:write'],
      tokenId: 'token-1',
      issuedAt: expect.any(Number),
      signingKeyId: 'k1',
    });
  });

  it.each([
    ['a non-string scope', { scope: ['locations:read'] }, []],
    ['no token id', {}, ['jti']],
  ])('given %s, when verified, then it is refused as invalid', async (_, claims, omit) => {
    const { token, publicKey } = await signed(claims, omit);
    await expect(new JwtAccessTokenVerifier(config, async () => publicKey).verify(token)).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('given a token of a former issuer that is still accepted, when verified, then it is valid', async () => {
    const { token, publicKey } = await signed({ iss: 'location-exchange' });
    const migrating = { ...config, acceptedIssuers: ['location-exchange'] };
    await expect(new JwtAccessTokenVerifier(migrating, async () => publicKey).verify(token)).resolves.toMatchObject({
      clientId: 'client-1',
    });
  });

  it.each([
    ['a former issuer no longer accepted', 'location-exchange'],
    ['another issuer', 'https://someone-else.example'],
    ['the issuer with a trailing slash (not the canonical form)', 'https://api.example.com/'],
  ])('given a token of %s, when verified, then its iss is refused', async (_, iss) => {
    const { token, publicKey } = await signed({ iss });
    await expect(new JwtAccessTokenVerifier(config, async () => publicKey).verify(token)).rejects.toThrow(
      "The access token's iss claim is not accepted",
    );
  });

  it('given a clock well ahead of the token, when verified, then it has expired', async () => {
    const { token, publicKey } = await signed();
    const later = () => Date.now() + 3_600_000;
    await expect(new JwtAccessTokenVerifier(config, async () => publicKey, later).verify(token)).rejects.toThrow(
      'The access token has expired',
    );
  });

  it('given a key lookup that cannot reach the key set, when verified, then 503, not 401', async () => {
    const { token } = await signed();
    const down = async () => {
      throw new joseErrors.JWKSTimeout();
    };
    await expect(new JwtAccessTokenVerifier(config, down).verify(token)).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
  });
});

describe('JwksAccessTokenVerifier', () => {
  it('given a JWKS endpoint that answers 500, when a token is verified, then 503 (the token is not known to be bad)', async () => {
    const server = createServer((_, response) => {
      response.statusCode = 500;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const verifier = new JwksAccessTokenVerifier({ ...config, jwksUrl: `http://127.0.0.1:${port}/jwks.json` });
      const { token } = await signed();
      await expect(verifier.verify(token)).rejects.toBeInstanceOf(DependencyUnavailableError);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('given an unreachable JWKS endpoint, when a token is verified, then 503', async () => {
    const verifier = new JwksAccessTokenVerifier({ ...config, jwksUrl: 'http://127.0.0.1:1/jwks.json' });
    const { token } = await signed();
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});
