import { Injectable } from '@nestjs/common';
import type { ClientView } from '@lx/contracts';
import { toClientView } from '../../domain/client';
import { ClientNotFoundError } from '../../domain/client.errors';
import { ClientRepository } from '../../infrastructure/client.repository';

export interface GetClientQuery {
  clientId: string;
}

/** One client, without secrets. */
@Injectable()
export class GetClientHandler {
  constructor(private readonly clients: ClientRepository) {}

  async execute(query: GetClientQuery): Promise<ClientView> {
    const client = await this.clients.findById(query.clientId);
    if (client === null) throw new ClientNotFoundError(query.clientId);
    return toClientView(client);
  }
}
