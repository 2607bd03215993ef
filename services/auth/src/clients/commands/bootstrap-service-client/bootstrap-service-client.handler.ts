import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ClientEventsPublisher } from '../../infrastructure/client-events.publisher';
import { ClientRepository } from '../../infrastructure/client.repository';
import { NewClientFactory } from '../../infrastructure/new-client.factory';

export interface BootstrapServiceClientCommand {
  clientId: string;
  clientSecret: string;
}

/** `created`, or why nothing was done. */
export type BootstrapServiceClientOutcome = 'created' | 'exists' | 'id-taken';

/** What the internal services' client may do: read what an export reads (the internal snapshot, fence and counts). */
export const SERVICE_CLIENT = { name: 'internal services', kind: 'OPERATOR', scopes: ['locations:read'] } as const;

/**
 * Creates the internal services' own API client (the export worker's, for the internal endpoints it reads from)
 * from configuration when no client has its id yet: a Kubernetes Secret holds the id and secret, auth creates the
 * client at its first start and the export worker uses the same Secret, so one `helm install` wires both. Once the
 * client exists the configured secret is not compared again: rotating it is the admin API's rotate-secret, then the
 * Secret is updated (docs/kubernetes.md).
 */
@Injectable()
export class BootstrapServiceClientHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clients: ClientRepository,
    private readonly factory: NewClientFactory,
    private readonly events: ClientEventsPublisher,
  ) {}

  async execute(command: BootstrapServiceClientCommand): Promise<BootstrapServiceClientOutcome> {
    const { client } = await this.factory.create({
      id: command.clientId,
      secret: command.clientSecret,
      name: SERVICE_CLIENT.name,
      kind: SERVICE_CLIENT.kind,
      scopes: SERVICE_CLIENT.scopes,
    });
    return this.dataSource.transaction(async (manager) => {
      // Replicas starting together: one creates the client, the others then see it.
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['auth:bootstrap-service-client']);
      const existing = await this.clients.findById(client.id, manager);
      if (existing !== null) return existing.kind === SERVICE_CLIENT.kind ? 'exists' : 'id-taken';
      await this.clients.insert(manager, client);
      await this.events.append(manager, 'CLIENT_REGISTERED', client);
      return 'created';
    });
  }
}
