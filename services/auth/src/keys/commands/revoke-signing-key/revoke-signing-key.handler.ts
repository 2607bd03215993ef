import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../../../config/auth.config';
import { NextKeyNotRevocableError, SigningKeyNotFoundError } from '../../domain/signing-key.errors';
import { type SigningKeyView, toSigningKeyView } from '../../domain/signing-key.view';
import { SigningKeyRepository } from '../../infrastructure/signing-key.repository';
import { SigningKeyStore } from '../../infrastructure/signing-key.store';
import { RotateSigningKeyHandler } from '../rotate-signing-key/rotate-signing-key.handler';

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
 * within AUTH_REVOCATIONS_REFRESH_MS (the revocation list names it). The current key is rotated out first, so new
 * tokens are signed by the next key; clients holding a refused token get a new one at the token endpoint. Revoking
 * a revoked key changes nothing; the next key cannot be revoked (it has signed nothing; a rotation replaces it).
 */
@Injectable()
export class RevokeSigningKeyHandler {
  private readonly logger = new Logger(RevokeSigningKeyHandler.name);

  constructor(
    private readonly keys: SigningKeyRepository,
    private readonly rotate: RotateSigningKeyHandler,
    private readonly store: SigningKeyStore,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async execute(command: RevokeSigningKeyCommand): Promise<RevocationResult> {
    const key = await this.keys.findByKid(command.kid);
    if (key === null) throw new SigningKeyNotFoundError(command.kid);
    if (key.activatedAt === null) throw new NextKeyNotRevocableError(command.kid);
    if (key.retiredAt === null && key.revokedAt === null) await this.rotate.execute();

    const now = this.clock.now();
    const { revoked, current } = await this.keys.underRotationLock(async (manager) => {
      const found = await this.keys.findByKid(command.kid, manager);
      if (found === null) throw new SigningKeyNotFoundError(command.kid);
      if (found.revokedAt === null) await this.keys.revoke(manager, found.kid, now);
      const after = await this.keys.findByKid(command.kid, manager);
      return { revoked: after ?? found, current: await this.keys.findCurrent(manager) };
    });
    if (revoked.revokedAt === null || current === null) {
      // Only a concurrent rotation racing the one above could leave the key unretired; nothing was revoked.
      throw new Error(`signing key ${command.kid} could not be revoked; try again`);
    }
    this.store.invalidate();
    this.logger.warn({ msg: 'Signing key revoked', kid: revoked.kid, currentKid: current.kid });
    const ttl = this.config.tokens.ttlSeconds;
    return { revoked: toSigningKeyView(revoked, now, ttl), current: toSigningKeyView(current, now, ttl) };
  }
}
