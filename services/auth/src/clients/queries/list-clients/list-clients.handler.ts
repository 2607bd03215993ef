import { Injectable } from '@nestjs/common';
import type { ClientList } from '@lx/contracts';
import { toClientView } from '../../domain/client';
import { ClientRepository } from '../../infrastructure/client.repository';

export interface ListClientsQuery {
  limit: number;
  offset: number;
}

/** A page of clients, oldest first, without secrets. */
@Injectable()
export class ListClientsHandler {
  constructor(private readonly clients: ClientRepository) {}

  async execute(query: ListClientsQuery): Promise<ClientList> {
    const { clients, total } = await this.clients.list(query.limit, query.offset);
    return { clients: clients.map(toClientView), pagination: { ...query, total } };
  }
}
