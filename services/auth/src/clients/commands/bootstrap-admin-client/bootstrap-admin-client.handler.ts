import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ClientEventsPublisher } from '../../infrastructure/client-events.publisher';
import { ClientRepository } from '../../infrastructure/client.repository';
import { NewClientFactory } from '../../infrastructure/new-client.factory';

export interface BootstrapAdminClientCommand {
  clientId: string;
  clientSecret: string;
}

/** `created`, or why nothing was done. */
export type BootstrapOutcome = 'created' | 'admin-exists' | 'id-taken';

/**
 * Creates the first admin client from configuration (a Kubernetes Secret in production) when no admin client
 * exists yet, and only then: once any admin client exists, the configured credentials are ignored, so rotating
 * or disabling that client sticks across restarts.
 */
@Injectable()
export class BootstrapAdminClientHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clients: ClientRepository,
    private readonly factory: NewClientFactory,
    private readonly events: ClientEventsPublisher,
  ) {}

  async execute(command: BootstrapAdminClientCommand): Promise<BootstrapOutcome> {
    const { client } = await this.factory.create({
      id: command.clientId,
      secret: command.clientSecret,
      name: 'bootstrap admin',
      kind: 'ADMIN',
    });
    return this.dataSource.transaction(async (manager) => {
      // Replicas starting together: one creates the client, the others then see it.
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['auth:bootstrap-admin']);
      if (await this.clients.existsOfKind(manager, 'ADMIN')) return 'admin-exists';
      if ((await this.clients.findById(client.id, manager)) !== null) return 'id-taken';
      await this.clients.insert(manager, client);
      await this.events.append(manager, 'CLIENT_REGISTERED', client);
      return 'created';
    });
  }
}
