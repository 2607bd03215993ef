import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ClientView } from '@lx/contracts';
import type { DataSource } from 'typeorm';
import { Clock } from '@lx/platform';
import { changeClient, tokenRevocationAt, toClientView } from '../../domain/client';
import { ClientNotFoundError } from '../../domain/client.errors';
import { ClientEventsPublisher } from '../../infrastructure/client-events.publisher';
import { ClientRepository } from '../../infrastructure/client.repository';

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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clients: ClientRepository,
    private readonly events: ClientEventsPublisher,
    private readonly clock: Clock,
  ) {}

  async execute(command: DisableClientCommand): Promise<ClientView> {
    return this.dataSource.transaction(async (manager) => {
      const client = await this.clients.lockById(manager, command.clientId);
      if (client === null) throw new ClientNotFoundError(command.clientId);
      if (!client.enabled) return toClientView(client);
      const now = this.clock.now();
      const disabled = changeClient(client, { enabled: false, tokensIssuedBefore: tokenRevocationAt(now) }, now);
      await this.clients.save(manager, disabled);
      await this.events.append(manager, 'CLIENT_DISABLED', disabled, command);
      return toClientView(disabled);
    });
  }
}
