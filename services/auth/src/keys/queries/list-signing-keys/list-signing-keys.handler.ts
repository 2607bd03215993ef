import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../../../config/auth.config';
import { type SigningKeyView, toSigningKeyView } from '../../domain/signing-key.view';
import { SigningKeyRepository } from '../../infrastructure/signing-key.repository';

/** Every signing key, newest first, with its status. */
@Injectable()
export class ListSigningKeysHandler {
  constructor(
    private readonly keys: SigningKeyRepository,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async execute(): Promise<{ keys: SigningKeyView[] }> {
    const now = this.clock.now();
    const keys = await this.keys.findAll();
    return { keys: keys.map((key) => toSigningKeyView(key, now, this.config.tokens.ttlSeconds)) };
  }
}
