import { Injectable } from '@nestjs/common';
import type { ClientSecrets } from '@lx/contracts';
import { Clock } from '@lx/platform';
import { changeClient, tokenRevocationAt } from '../../domain/client';
import { ClientNotFoundError } from '../../domain/client.errors';
import { ClientRepository } from '../../infrastructure/client.repository';
import { NewClientFactory } from '../../infrastructure/new-client.factory';
import { ClientUnitOfWork } from '../../infrastructure/client.unit-of-work';

export interface RotateClientSecretCommand {
  clientId: string;
  /** Travels into the event's lx-correlation-id header (the HTTP request id). */
  correlationId?: string;
}

/**
 * Replaces a client's secret (and an RSP's webhook signing secret) with new ones, shown this once; the old secret
 * stops working at once and the tokens issued with it are revoked (every verifier refuses them within
 * AUTH_REVOCATIONS_REFRESH_MS). Publishes CLIENT_SECRET_ROTATED with the new webhook secret.
 */
@Injectable()
export class RotateClientSecretHandler {
  constructor(
    private readonly unitOfWork: ClientUnitOfWork,
    private readonly clients: ClientRepository,
    private readonly factory: NewClientFactory,
    private readonly clock: Clock,
  ) {}

  async execute(command: RotateClientSecretCommand): Promise<ClientSecrets> {
    const existing = await this.clients.findById(command.clientId);
    if (existing === null) throw new ClientNotFoundError(command.clientId);
    // Hashing is slow: done before the transaction, so no row lock waits on it.
    const fresh = await this.factory.newSecrets(existing.id, existing.kind);

    await this.unitOfWork.run(async (transaction) => {
      const client = await transaction.lockById(command.clientId);
      if (client === null) throw new ClientNotFoundError(command.clientId);
      const now = this.clock.now();
      const rotated = changeClient(
        client,
        {
          secretHash: fresh.secretHash,
          webhookSecretEncrypted: fresh.webhookSecretEncrypted,
          tokensIssuedBefore: tokenRevocationAt(now),
        },
        now,
      );
      await transaction.save(rotated);
      await transaction.append('CLIENT_SECRET_ROTATED', rotated, command);
    });
    return fresh.secrets;
  }
}
