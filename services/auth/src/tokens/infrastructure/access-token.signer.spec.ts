import { decodeProtectedHeader, generateKeyPair, type KeyLike } from 'jose';
import { RevocationSet } from '@lx/platform';
import type { AuthConfig } from '../../config/auth.config';
import type { CurrentSigner, SigningKeyStore } from '../../keys/infrastructure/signing-key.store';
import { AccessTokenSigner } from './access-token.signer';
import type { LocalRevocations } from './local-revocations';

/** A store whose cached signer is `kid`s until invalidated, then `fresh`'s, as after a revocation elsewhere. */
class FakeStore {
  invalidations = 0;
  constructor(
    private cached: CurrentSigner,
    private readonly fresh: CurrentSigner,
  ) {}
  signer = () => Promise.resolve(this.cached);
  invalidate = () => {
    this.invalidations += 1;
    this.cached = this.fresh;
  };
}

const config = {
  auth: { issuer: 'https://api.example.com', audience: 'location-exchange-api' },
  tokens: { ttlSeconds: 600 },
} as unknown as AuthConfig;
const claims = {
  clientId: '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e',
  kind: 'RSP' as const,
  scopes: ['locations:read' as const],
  issuedAt: new Date(),
};

describe('AccessTokenSigner', () => {
  let key: KeyLike;
  beforeAll(async () => {
    key = (await generateKeyPair('ES256')).privateKey;
  });
  const signerOf = (kid: string): CurrentSigner => ({ kid, algorithm: 'ES256', privateKey: key });
  const revocations = (signingKeys: string[]) =>
    ({
      current: () => Promise.resolve(new RevocationSet({ clients: [], signingKeys })),
    }) as unknown as LocalRevocations;

  it('signs with the cached signer while its key is not revoked', async () => {
    const store = new FakeStore(signerOf('current'), signerOf('newer'));
    const signer = new AccessTokenSigner(store as unknown as SigningKeyStore, revocations([]), config);
    expect(decodeProtectedHeader(await signer.sign(claims)).kid).toBe('current');
    expect(store.invalidations).toBe(0);
  });

  it('reloads the signer when its key was revoked (on another replica), and signs with the new current key', async () => {
    const store = new FakeStore(signerOf('leaked'), signerOf('newer'));
    const signer = new AccessTokenSigner(store as unknown as SigningKeyStore, revocations(['leaked']), config);
    expect(decodeProtectedHeader(await signer.sign(claims)).kid).toBe('newer');
    expect(store.invalidations).toBe(1);
  });
});
