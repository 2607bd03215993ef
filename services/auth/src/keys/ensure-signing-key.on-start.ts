import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { EnsureSigningKeyHandler } from './commands/ensure-signing-key/ensure-signing-key.handler';

/** At service start, before it listens: a current signing key exists. */
@Injectable()
export class EnsureSigningKeyOnStart implements OnApplicationBootstrap {
  constructor(private readonly ensure: EnsureSigningKeyHandler) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensure.execute();
  }
}
