import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ClientKind } from '@lx/contracts';
import { type DataSource, type EntityManager, MoreThan } from 'typeorm';
import type { Client } from '../domain/client';
import { ClientEntity } from './client.entity';

/**
 * Clients in Postgres. Writes take the caller's EntityManager so they share the transaction that appends the
 * client's event to the outbox.
 */
@Injectable()
export class ClientRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<Client | null> {
    return manager.findOneBy(ClientEntity, { id });
  }

  /** Reads the row for update: concurrent changes of one client serialize, so events follow the row's history. */
  async lockById(manager: EntityManager, id: string): Promise<Client | null> {
    return manager.findOne(ClientEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async list(limit: number, offset: number): Promise<{ clients: Client[]; total: number }> {
    const [clients, total] = await this.dataSource.manager.findAndCount(ClientEntity, {
      order: { createdAt: 'ASC', id: 'ASC' },
      take: limit,
      skip: offset,
    });
    return { clients, total };
  }

  /** Clients whose tokens were revoked after `after`, with their cut-off. */
  async findTokenRevocationsSince(after: Date): Promise<{ clientId: string; tokensIssuedBefore: Date }[]> {
    const clients = await this.dataSource.manager.find(ClientEntity, {
      select: { id: true, tokensIssuedBefore: true },
      where: { tokensIssuedBefore: MoreThan(after) },
    });
    return clients.map((client) => ({ clientId: client.id, tokensIssuedBefore: client.tokensIssuedBefore as Date }));
  }

  async existsOfKind(manager: EntityManager, kind: ClientKind): Promise<boolean> {
    return manager.existsBy(ClientEntity, { kind });
  }

  async insert(manager: EntityManager, client: Client): Promise<void> {
    await manager.insert(ClientEntity, client);
  }

  async save(manager: EntityManager, client: Client): Promise<void> {
    await manager.save(ClientEntity, client);
  }
}
