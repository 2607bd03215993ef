import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ClientKind } from '@lx/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import type { Client } from '../domain/client';
import { type ClientEventContext, type ClientEventType, ClientEventsPublisher } from './client-events.publisher';
import { ClientRepository } from './client.repository';

/** What a client command reads and writes inside its transaction: what it writes commits or rolls back together. */
export interface ClientTransaction {
  findById(id: string): Promise<Client | null>;
  /** Reads the row for update: concurrent changes of one client serialize, so events follow the row's history. */
  lockById(id: string): Promise<Client | null>;
  existsOfKind(kind: ClientKind): Promise<boolean>;
  insert(client: Client): Promise<void>;
  save(client: Client): Promise<void>;
  /** Appends the client's event to the outbox: it exists exactly when the change commits. */
  append(type: ClientEventType, client: Client, context?: ClientEventContext): Promise<void>;
  /** Waits for, then holds until the end of the transaction, the lock named `name` (one holder at a time). */
  lock(name: string): Promise<void>;
}

/** Port: runs a client command's reads and writes in one transaction. */
export abstract class ClientUnitOfWork {
  abstract run<T>(work: (transaction: ClientTransaction) => Promise<T>): Promise<T>;
}

/** One Postgres transaction over the clients table and the outbox. */
@Injectable()
export class TypeOrmClientUnitOfWork extends ClientUnitOfWork {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clients: ClientRepository,
    private readonly events: ClientEventsPublisher,
  ) {
    super();
  }

  run<T>(work: (transaction: ClientTransaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(this.transactionOf(manager)));
  }

  private transactionOf(manager: EntityManager): ClientTransaction {
    const { clients, events } = this;
    return {
      findById: (id) => clients.findById(id, manager),
      lockById: (id) => clients.lockById(manager, id),
      existsOfKind: (kind) => clients.existsOfKind(manager, kind),
      insert: (client) => clients.insert(manager, client),
      save: (client) => clients.save(manager, client),
      append: (type, client, context) => events.append(manager, type, client, context),
      lock: async (name) => {
        await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [name]);
      },
    };
  }
}
