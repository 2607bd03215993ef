import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../../../config/auth.config';
import { type SigningKeyView, toSigningKeyView } from '../../domain/signing-key.view';
import { SigningKeyFactory } from '../../infrastructure/signing-key.factory';
import { SigningKeyRepository } from '../../infrastructure/signing-key.repository';
import { SigningKeyRotation } from '../../infrastructure/signing-key.rotation';
import { SigningKeyStore } from '../../infrastructure/signing-key.store';

export interface RotationResult {
  current: SigningKeyView;
  next: SigningKeyView;
  retired?: SigningKeyView;
}

/**
 * Retires the current signing key and makes the next one current, then prepares a new next key. New tokens are
 * signed with the new current key, which verifiers have usually cached already because it was published as the
 * next key since the previous rotation (so a JWKS refetch cooldown cannot make them refuse it). The retired key
 * stays in the JWKS until every token it signed has expired.
 */
@Injectable()
export class RotateSigningKeyHandler {
  private readonly logger = new Logger(RotateSigningKeyHandler.name);

  constructor(
    private readonly keys: SigningKeyRepository,
    private readonly factory: SigningKeyFactory,
    private readonly rotation: SigningKeyRotation,
    private readonly store: SigningKeyStore,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async execute(): Promise<RotationResult> {
    const algorithm = this.config.tokens.signingAlgorithm;
    const upcoming = await this.factory.create(algorithm, null);
    const now = this.clock.now();
    const { current, retired } = await this.keys.underRotationLock((manager) =>
      this.rotation.rotate(manager, algorithm, upcoming, now),
    );
    this.store.invalidate();
    this.logger.log({ msg: 'Signing key rotated', kid: current.kid, retiredKid: retired?.kid, nextKid: upcoming.kid });
    const ttl = this.config.tokens.ttlSeconds;
    return {
      current: toSigningKeyView(current, now, ttl),
      next: toSigningKeyView(upcoming, now, ttl),
      ...(retired === undefined ? {} : { retired: toSigningKeyView(retired, now, ttl) }),
    };
  }
}
