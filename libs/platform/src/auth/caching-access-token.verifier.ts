import { decodeJwt } from 'jose';
import { AccessTokenVerifier } from './access-token.verifier';
import type { Principal } from './authentication.errors';

/** How long a verified token is trusted without checking its signature again (never past its own expiry). */
const MAX_CACHE_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Remembers tokens it has verified, until their expiry but at most a minute. A JWT's signature check (ES256/EdDSA)
 * costs more than the primary-key lookup behind GET /locations/{id}, and RSPs send the same token with every request
 * of its lifetime. Nothing is lost: a cached answer is the answer a fresh check of signature and claims would give
 * until the token expires, and revocations are applied outside this cache (RevocationCheckingVerifier), on every
 * request.
 */
export class CachingAccessTokenVerifier extends AccessTokenVerifier {
  private readonly cache = new Map<string, { principal: Principal; until: number }>();

  constructor(
    private readonly inner: AccessTokenVerifier,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  async verify(token: string): Promise<Principal> {
    const now = this.now();
    const cached = this.cache.get(token);
    if (cached !== undefined && cached.until > now) return cached.principal;
    if (cached !== undefined) this.cache.delete(token);
    const principal = await this.inner.verify(token);
    const { exp } = decodeJwt(token);
    const until = Math.min(now + MAX_CACHE_MS, typeof exp === 'number' ? exp * 1000 : now);
    if (until > now) {
      // Map iterates in insertion order: dropping the first entry drops the oldest.
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(token, { principal, until });
    }
    return principal;
  }
}
