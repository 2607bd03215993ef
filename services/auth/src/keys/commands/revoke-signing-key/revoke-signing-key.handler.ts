import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../../../config/auth.config';
import { NextKeyNotRevocableError, SigningKeyNotFoundError } from '../../domain/signing-key.errors';
import { type SigningKeyView, toSigningKeyView } from '../../domain/signing-key.view';
import { SigningKeyFactory } from '../../infrastructure/signing-key.factory';
import { SigningKeyRepository } from '../../infrastructure/signing-key.repository';
import { SigningKeyRotation } from '../../infrastructure/signing-key.rotation';
import { SigningKeyStore } from '../../infrastructure/signing-key.store';

export interface RevokeSigningKeyCommand {
  kid: string;
}

export interface RevocationResult {
  revoked: SigningKeyView;
  /** The key that signs from now on (a new one when the revoked key was the current key). */
  current: SigningKeyView;
}

/**
 * Revokes a signing key that may have leaked: it leaves the JWKS and every verifier refuses the tokens it signed
 * within AUTH_REVOCATIONS_REFRESH_MS (the revocation list names it). The current key is rotated out first, in the same
 * locked transaction (two revocations at once rotate once), so new tokens are signed by the next key; clients holding a refused token get a new one at the token endpoint. Revoking
 * a revoked key changes nothing; the next key cannot be revoked (it has signed nothing; a rotation replaces it).
 */
@Injectable()
export class RevokeSigningKeyHandler {
  private readonly logger = new Logger(RevokeSigningKeyHandler.name);

  constructor(
    private readonly keys: SigningKeyRepository,
    private readonly factory: SigningKeyFactory,
    private readonly rotation: SigningKeyRotation,
    private readonly store: SigningKeyStore,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async execute(command: RevokeSigningKeyCommand): Promise<RevocationResult> {
    // Made before the lock (generating a key takes time), used only if the key is the current one.
    const upcoming = await this.factory.create(this.config.tokens.signingAlgorithm, null);
    const now = this.clock.now();
    const { revoked, current } = await this.keys.underRotationLock(async (manager) => {
      const key = await this.keys.findByKid(command.kid, manager);
      if (key === null) throw new SigningKeyNotFoundError(command.kid);
      if (key.activatedAt === null) throw new NextKeyNotRevocableError(command.kid);
      if (key.retiredAt === null)
        await this.rotation.rotate(manager, this.config.tokens.signingAlgorithm, upcoming, now);
      if (key.revokedAt === null) await this.keys.revoke(manager, key.kid, now);
      const signing = await this.keys.findCurrent(manager);
      if (signing === null) throw new Error('No current signing key: the service creates one at start');
      return {
        revoked: { ...key, retiredAt: key.retiredAt ?? now, revokedAt: key.revokedAt ?? now },
        current: signing,
      };
    });
    this.store.invalidate();
    this.logger.warn({ msg: 'Signing key revoked', kid: revoked.kid, currentKid: current.kid });
    const ttl = this.config.tokens.ttlSeconds;
    return { revoked: toSigningKeyView(revoked, now, ttl), current: toSigningKeyView(current, now, ttl) };
  }
}
