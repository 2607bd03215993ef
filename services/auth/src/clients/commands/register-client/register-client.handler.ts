import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { RegisteredClient, RegisterClientRequest } from '@lx/contracts';
import type { DataSource } from 'typeorm';
import { toClientView } from '../../domain/client';
import { ClientEventsPublisher } from '../../infrastructure/client-events.publisher';
import { ClientRepository } from '../../infrastructure/client.repository';
import { NewClientFactory } from '../../infrastructure/new-client.factory';

export type RegisterClientCommand = RegisterClientRequest & {
  /** Travels into the event's lx-correlation-id header (the HTTP request id). */
  correlationId?: string;
};

/** Registers a client with generated secrets, which the reply shows this once; publishes CLIENT_REGISTERED. */
@Injectable()
export class RegisterClientHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clients: ClientRepository,
    private readonly factory: NewClientFactory,
    private readonly events: ClientEventsPublisher,
  ) {}

  async execute(command: RegisterClientCommand): Promise<RegisteredClient> {
    const { correlationId, ...request } = command;
    const { client, secrets } = await this.factory.create(request);
    await this.dataSource.transaction(async (manager) => {
      await this.clients.insert(manager, client);
      await this.events.append(manager, 'CLIENT_REGISTERED', client, { correlationId });
    });
    return { ...toClientView(client), ...secrets };
  }
}
