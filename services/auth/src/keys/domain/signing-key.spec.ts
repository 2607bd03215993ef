import { statusOf } from './signing-key';

const ttl = 3600;
const retiredAt = new Date('2025-01-01T12:00:00Z');
const after = (seconds: number) => new Date(retiredAt.getTime() + seconds * 1000);

describe('signing key status', () => {
  it('given a key not activated yet, when asked, then it is the next key', () => {
    expect(statusOf({ activatedAt: null, retiredAt: null, revokedAt: null }, retiredAt, ttl)).toBe('next');
  });

  it('given an active key, when asked, then it is current', () => {
    expect(statusOf({ activatedAt: retiredAt, retiredAt: null, revokedAt: null }, retiredAt, ttl)).toBe('current');
  });

  it('given a retired key whose last token may still be valid, when asked, then it stays published as previous', () => {
    expect(statusOf({ activatedAt: retiredAt, retiredAt, revokedAt: null }, after(ttl), ttl)).toBe('previous');
    expect(statusOf({ activatedAt: retiredAt, retiredAt, revokedAt: null }, after(ttl + 64), ttl)).toBe('previous');
  });

  it('given a retired key whose tokens have all expired (plus margin and clock tolerance), when asked, then it is expired', () => {
    expect(statusOf({ activatedAt: retiredAt, retiredAt, revokedAt: null }, after(ttl + 65), ttl)).toBe('expired');
  });

  it('given a revoked key, when asked, then it is revoked whatever its retirement says', () => {
    expect(statusOf({ activatedAt: retiredAt, retiredAt, revokedAt: retiredAt }, retiredAt, ttl)).toBe('revoked');
    expect(statusOf({ activatedAt: retiredAt, retiredAt, revokedAt: after(1) }, after(ttl + 65), ttl)).toBe('revoked');
  });
});
