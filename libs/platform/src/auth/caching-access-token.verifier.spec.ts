import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, type KeyLike, SignJWT } from 'jose';
import { AccessTokenVerifier, JWKS_REFETCH_COOLDOWN_MS, JwksAccessTokenVerifier } from './access-token.verifier';
import { AuthenticationError, type Principal } from './authentication.errors';
import { CachingAccessTokenVerifier } from './caching-access-token.verifier';

/** An unsigned JWT with the given claims (the cache reads exp after the inner verifier accepted the token). */
function tokenWith(claims: object): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256' })}.${part(claims)}.signature`;
}

function tokenExpiringAt(expSeconds: number, id = 'a'): string {
  return tokenWith({ exp: expSeconds, jti: id });
}

/** As many entries as the cache holds. */
const CAPACITY = 10_000;
/** The clock at the start of every test, in milliseconds. */
const START = 1_700_000_000_000;

class CountingVerifier extends AccessTokenVerifier {
  calls = 0;
  reject = false;
  async verify(token: string): Promise<Principal> {
    this.calls += 1;
    if (this.reject) throw new AuthenticationError('The access token signature is invalid', 'invalid_token');
    return { clientId: 'rsp', scopes: ['locations:read'], tokenId: token.slice(-12), issuedAt: 1, signingKeyId: 'k' };
  }
}

describe('CachingAccessTokenVerifier', () => {
  let now: number;
  let inner: CountingVerifier;
  let verifier: CachingAccessTokenVerifier;

  beforeEach(() => {
    now = START;
    inner = new CountingVerifier();
    verifier = new CachingAccessTokenVerifier(inner, () => now);
  });

  it('given a token verified once, when it comes again within a minute, then its signature is not checked again', async () => {
    const token = tokenExpiringAt(now / 1000 + 3600);
    const first = await verifier.verify(token);
    now += 59_000;
    await expect(verifier.verify(token)).resolves.toEqual(first);
    expect(inner.calls).toBe(1);
  });

  it('given a cached token, when a minute has passed, then it is verified again', async () => {
    const token = tokenExpiringAt(now / 1000 + 3600);
    await verifier.verify(token);
    now += 60_001;
    await verifier.verify(token);
    expect(inner.calls).toBe(2);
  });

  it('given a token that expires in ten seconds, when it comes after its expiry, then the inner verifier decides', async () => {
    const token = tokenExpiringAt(now / 1000 + 10);
    await verifier.verify(token);
    now += 11_000;
    inner.reject = true;
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('given a token the inner verifier refuses, when it comes again, then it is refused again (failures are not cached)', async () => {
    inner.reject = true;
    const token = tokenExpiringAt(now / 1000 + 3600);
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(AuthenticationError);
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(AuthenticationError);
    expect(inner.calls).toBe(2);
  });

  it('given a cached token, when exactly a minute has passed, then it is verified again', async () => {
    const token = tokenExpiringAt(now / 1000 + 3600);
    await verifier.verify(token);
    now += 60_000;
    await verifier.verify(token);
    expect(inner.calls).toBe(2);
  });

  it.each([
    ['no exp', tokenWith({ jti: 'a' })],
    ['an exp that is not a number', tokenWith({ exp: String(START / 1000 + 3600), jti: 'a' })],
  ])(
    'given a token with %s that the inner verifier accepts, when it comes again, then it is verified again',
    async (_, token) => {
      await verifier.verify(token);
      await verifier.verify(token);
      expect(inner.calls).toBe(2);
    },
  );

  it('given two tokens, when each comes again, then both were remembered', async () => {
    const [first, second] = [tokenExpiringAt(now / 1000 + 3600, 'a'), tokenExpiringAt(now / 1000 + 3600, 'b')];
    await verifier.verify(first);
    await verifier.verify(second);
    await verifier.verify(first);
    await verifier.verify(second);
    expect(inner.calls).toBe(2);
  });

  describe('given a full cache', () => {
    const tokens = Array.from({ length: CAPACITY }, (_, i) => tokenExpiringAt(START / 1000 + 3600, `t${i}`));

    /** Whether the token is answered from the cache (the inner verifier is not asked). */
    async function isCached(token: string): Promise<boolean> {
      const before = inner.calls;
      await verifier.verify(token);
      return inner.calls === before;
    }

    it('when another token is verified, then the oldest is forgotten and the others are kept', async () => {
      for (const token of tokens) await verifier.verify(token);
      await verifier.verify(tokenExpiringAt(now / 1000 + 3600, 'newest'));
      expect(await isCached(tokens[1]!)).toBe(true);
      expect(await isCached(tokens[CAPACITY - 1]!)).toBe(true);
      expect(await isCached(tokens[0]!)).toBe(false);
    });

    it('when tokens that must not be cached are verified, then they take no place in it', async () => {
      for (const token of tokens) await verifier.verify(token);
      // Expiring now, expired (an inner verifier may allow clock skew), or with an exp that is not a number.
      await verifier.verify(tokenExpiringAt(now / 1000, 'expiring'));
      await verifier.verify(tokenExpiringAt(now / 1000 - 3, 'expired'));
      await verifier.verify(tokenWith({ exp: String(now / 1000 + 3600), jti: 'odd' }));
      expect(await isCached(tokens[0]!)).toBe(true);
    });

    it('when a token it held is verified again after its minute, then it counts as the newest', async () => {
      const [oldest, renewed, ...others] = tokens;
      await verifier.verify(oldest!);
      await verifier.verify(renewed!);
      now += 30_000;
      for (const token of others) await verifier.verify(token);
      now += 31_000; // the minute of the first two is over, not that of the others
      await verifier.verify(renewed!);
      // Two more tokens: the cache forgets the two oldest entries to hold them.
      await verifier.verify(tokenExpiringAt(now / 1000 + 3600, 'newer'));
      await verifier.verify(tokenExpiringAt(now / 1000 + 3600, 'newest'));
      expect(await isCached(renewed!)).toBe(true);
      expect(await isCached(others[1]!)).toBe(true);
    });
  });
});

describe('CachingAccessTokenVerifier over the JWKS verifier (as services compose them)', () => {
  const config = { issuer: 'https://api.example.com', acceptedIssuers: [], audience: 'location-exchange-api' };

  async function signingKey(kid: string) {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } };
  }

  function tokenSignedBy(key: { kid: string; privateKey: KeyLike }, jti: string): Promise<string> {
    return new SignJWT({ scope: 'locations:read' })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid })
      .setIssuer(config.issuer)
      .setAudience(config.audience)
      .setSubject('client-1')
      .setJti(jti)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key.privateKey);
  }

  it('given two concurrent requests with tokens of a key id not seen yet, when verified, then the key set is fetched once', async () => {
    const [current, rotated] = [await signingKey('k1'), await signingKey('k2')];
    let published = [current.jwk];
    let fetches = 0;
    const server = createServer((_, response) => {
      fetches += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: published }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const clock = jest.spyOn(Date, 'now');
    try {
      const verifier = new CachingAccessTokenVerifier(
        new JwksAccessTokenVerifier({ ...config, jwksUrl: `http://127.0.0.1:${port}/jwks.json` }),
      );
      const cold = [await tokenSignedBy(current, 'cold-1'), await tokenSignedBy(current, 'cold-2')];
      await Promise.all(cold.map((token) => verifier.verify(token)));
      expect(fetches).toBe(1);

      // The auth service rotates its key; the refetch cooldown since the first fetch has passed.
      published = [current.jwk, rotated.jwk];
      const later = Date.now() + JWKS_REFETCH_COOLDOWN_MS + 1_000;
      clock.mockReturnValue(later);
      const rotatedTokens = [await tokenSignedBy(rotated, 'rotated-1'), await tokenSignedBy(rotated, 'rotated-2')];
      const principals = await Promise.all(rotatedTokens.map((token) => verifier.verify(token)));
      expect(principals.map((principal) => principal.tokenId)).toEqual(['rotated-1', 'rotated-2']);
      expect(fetches).toBe(2);
    } finally {
      clock.mockRestore();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
