import { Injectable } from '@nestjs/common';
import type { RevocationList } from '@lx/contracts';
import { Clock } from '@lx/platform';
import { ClientRepository } from '../../../clients/infrastructure/client.repository';
import { SigningKeyRepository } from '../../../keys/infrastructure/signing-key.repository';
import { revocationHorizon, toRevocationList } from '../../domain/revocation-list';

/** The revocations verifiers must apply now: clients' cut-offs and revoked signing keys, within the horizon. */
@Injectable()
export class ListRevocationsHandler {
  constructor(
    private readonly clients: ClientRepository,
    private readonly keys: SigningKeyRepository,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<RevocationList> {
    const horizon = revocationHorizon(this.clock.now());
    const [clients, signingKeys] = await Promise.all([
      this.clients.findTokenRevocationsSince(horizon),
      this.keys.findRevokedSince(horizon),
    ]);
    return toRevocationList(clients, signingKeys);
  }
}
