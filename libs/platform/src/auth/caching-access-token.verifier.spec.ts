import { AccessTokenVerifier } from './access-token.verifier';
import { AuthenticationError, type Principal } from './authentication.errors';
import { CachingAccessTokenVerifier } from './caching-access-token.verifier';

/** An unsigned JWT carrying only `exp` (the cache reads exp after the inner verifier accepted the token). */
function tokenExpiringAt(expSeconds: number, id = 'a'): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256' })}.${part({ exp: expSeconds, jti: id })}.signature`;
}

class CountingVerifier extends AccessTokenVerifier {
  calls = 0;
  reject = false;
  async verify(token: string): Promise<Principal> {
    this.calls += 1;
    if (this.reject) throw new AuthenticationError('The access token signature is invalid', 'invalid_token');
    return { clientId: 'rsp', scopes: ['locations:read'], tokenId: token.slice(-12) };
  }
}

describe('CachingAccessTokenVerifier', () => {
  let now: number;
  let inner: CountingVerifier;
  let verifier: CachingAccessTokenVerifier;

  beforeEach(() => {
    now = 1_700_000_000_000;
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
});
