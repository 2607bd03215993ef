import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../../../config/auth.config';
import { SigningKeyFactory } from '../../infrastructure/signing-key.factory';
import { SigningKeyRepository } from '../../infrastructure/signing-key.repository';

/**
 * Makes sure a current and a next signing key exist (the very first start creates both). A changed
 * TOKEN_SIGNING_ALGORITHM takes effect at the next rotation, not here, so replicas of a rolling update with
 * different settings do not rotate back and forth.
 */
@Injectable()
export class EnsureSigningKeyHandler {
  private readonly logger = new Logger(EnsureSigningKeyHandler.name);

  constructor(
    private readonly keys: SigningKeyRepository,
    private readonly factory: SigningKeyFactory,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async execute(): Promise<void> {
    if ((await this.keys.findCurrent()) !== null && (await this.keys.findNext()) !== null) return;
    const algorithm = this.config.tokens.signingAlgorithm;
    await this.keys.underRotationLock(async (manager) => {
      if ((await this.keys.findCurrent(manager)) === null) {
        const key = await this.factory.create(algorithm, this.clock.now());
        await this.keys.insert(manager, key);
        this.logger.log({ msg: 'Created the current signing key', kid: key.kid, algorithm });
      }
      if ((await this.keys.findNext(manager)) === null) {
        const key = await this.factory.create(algorithm, null);
        await this.keys.insert(manager, key);
        this.logger.log({ msg: 'Created the next signing key', kid: key.kid, algorithm });
      }
    });
  }
}
