import { Injectable } from '@nestjs/common';
import type { ClientView } from '@lx/contracts';
import { Clock } from '@lx/platform';
import { changeClient, tokenRevocationAt, toClientView } from '../../domain/client';
import { ClientNotFoundError } from '../../domain/client.errors';
import { ClientUnitOfWork } from '../../infrastructure/client.unit-of-work';

export interface DisableClientCommand {
  clientId: string;
  /** Travels into the event's lx-correlation-id header (the HTTP request id). */
  correlationId?: string;
}

/**
 * Disables a client: it gets no new tokens, the tokens it holds are revoked (every verifier refuses them within
 * AUTH_REVOCATIONS_REFRESH_MS) and, through CLIENT_DISABLED, it gets no more webhooks. Disabling a disabled client
 * changes nothing.
 */
@Injectable()
export class DisableClientHandler {
  constructor(
    private readonly unitOfWork: ClientUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(command: DisableClientCommand): Promise<ClientView> {
    return this.unitOfWork.run(async (transaction) => {
      const client = await transaction.lockById(command.clientId);
      if (client === null) throw new ClientNotFoundError(command.clientId);
      if (!client.enabled) return toClientView(client);
      const now = this.clock.now();
      const disabled = changeClient(client, { enabled: false, tokensIssuedBefore: tokenRevocationAt(now) }, now);
      await transaction.save(disabled);
      await transaction.append('CLIENT_DISABLED', disabled, command);
      return toClientView(disabled);
    });
  }
}
