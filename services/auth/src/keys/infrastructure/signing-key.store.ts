import { Inject, Injectable } from '@nestjs/common';
import { errors as joseErrors, importJWK, importPKCS8, type JWK, type KeyLike } from 'jose';
import { Clock, Recent, SecretBox } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth.config';
import { oldestPublishedRetirement, type SigningAlgorithm } from '../domain/signing-key';
import { privateKeyContext } from './signing-key.factory';
import { SigningKeyRepository } from './signing-key.repository';

/** The key that signs new tokens, decrypted. */
export interface CurrentSigner {
  kid: string;
  algorithm: SigningAlgorithm;
  privateKey: KeyLike;
}

/**
 * How long a process keeps signing with the key it loaded; a rotation elsewhere reaches it within this time.
 * PUBLICATION_MARGIN_SECONDS keeps a retired key published well beyond it.
 */
const SIGNER_REFRESH_MS = 5_000;
/** Lower bound between reloads of the verification keys caused by unknown key ids (made-up kids cost no queries). */
const VERIFICATION_RELOAD_COOLDOWN_MS = 1_000;
/**
 * How long the published keys are reused, so a flood of unauthenticated JWKS requests costs few queries. Safe:
 * a key is published as the next key a whole rotation before it signs anything.
 */
const PUBLISHED_CACHE_MS = 1_000;

/**
 * Access to the signing keys as the rest of the service needs them: the current signer (cached briefly, since
 * decrypting and importing costs more than signing), the published public keys for the JWKS, and verification keys
 * by key id.
 */
@Injectable()
export class SigningKeyStore {
  private readonly currentSigner = new Recent(SIGNER_REFRESH_MS, () => this.loadSigner());
  private verificationCache = new Map<string, Promise<KeyLike>>();
  private verificationLoadedAt = 0;
  /** The reload in flight: callers that miss the cache meanwhile wait for it instead of failing. */
  private verificationLoad?: Promise<void>;
  private readonly published = new Recent(PUBLISHED_CACHE_MS, () => this.loadPublished());

  constructor(
    private readonly keys: SigningKeyRepository,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  signer(): Promise<CurrentSigner> {
    return this.currentSigner.get();
  }

  /** Public keys of the next and current keys and of retired keys whose tokens may still be valid. */
  publishedKeys(): Promise<JWK[]> {
    return this.published.get();
  }

  /** The published key `kid` for `algorithm`; jose's JWKSNoMatchingKey when there is none. */
  async verificationKey(kid: string | undefined, algorithm: string): Promise<KeyLike> {
    if (kid === undefined) throw new joseErrors.JWKSNoMatchingKey();
    const cacheKey = `${kid}/${algorithm}`;
    if (!this.verificationCache.has(cacheKey)) {
      // Within the cooldown a miss does not start a reload, but one already running (after a start or a rotation,
      // when many requests miss at once) may bring the key: every caller waits for it, none fails before it ends.
      if (
        this.verificationLoad === undefined &&
        Date.now() - this.verificationLoadedAt > VERIFICATION_RELOAD_COOLDOWN_MS
      ) {
        this.verificationLoad = this.loadVerificationKeys().finally(() => (this.verificationLoad = undefined));
      }
      await this.verificationLoad;
    }
    const key = this.verificationCache.get(cacheKey);
    if (key === undefined) throw new joseErrors.JWKSNoMatchingKey();
    return key;
  }

  /** After a rotation in this process: use the new key at once. */
  invalidate(): void {
    this.currentSigner.forget();
    this.published.forget();
    this.verificationLoadedAt = 0;
  }

  private async loadPublished(): Promise<JWK[]> {
    const retiredAfter = oldestPublishedRetirement(this.clock.now(), this.config.tokens.ttlSeconds);
    return (await this.keys.findPublished(retiredAfter)).map((key) => key.publicJwk);
  }

  private async loadSigner(): Promise<CurrentSigner> {
    const key = await this.keys.findCurrent();
    if (key === null) throw new Error('No current signing key: the service creates one at start');
    const pem = this.box.open(key.privateKeyEncrypted, privateKeyContext(key.kid)).toString('utf8');
    return { kid: key.kid, algorithm: key.algorithm, privateKey: await importPKCS8(pem, key.algorithm) };
  }

  private async loadVerificationKeys(): Promise<void> {
    this.verificationLoadedAt = Date.now();
    const cache = new Map<string, Promise<KeyLike>>();
    for (const jwk of await this.publishedKeys()) {
      if (jwk.kid === undefined || jwk.alg === undefined) continue;
      const key = importJWK(jwk, jwk.alg) as Promise<KeyLike>;
      key.catch(() => undefined);
      cache.set(`${jwk.kid}/${jwk.alg}`, key);
    }
    this.verificationCache = cache;
  }
}
