import { Module } from '@nestjs/common';
import { BootstrapAdminClientHandler } from './commands/bootstrap-admin-client/bootstrap-admin-client.handler';
import { BootstrapServiceClientHandler } from './commands/bootstrap-service-client/bootstrap-service-client.handler';
import { DisableClientHandler } from './commands/disable-client/disable-client.handler';
import { RegisterClientHandler } from './commands/register-client/register-client.handler';
import { RotateClientSecretHandler } from './commands/rotate-client-secret/rotate-client-secret.handler';
import { UpdateClientHandler } from './commands/update-client/update-client.handler';
import { ClientEventsPublisher } from './infrastructure/client-events.publisher';
import { ClientRepository } from './infrastructure/client.repository';
import { ClientUnitOfWork, TypeOrmClientUnitOfWork } from './infrastructure/client.unit-of-work';
import { NewClientFactory } from './infrastructure/new-client.factory';
import { GetClientHandler } from './queries/get-client/get-client.handler';
import { ListClientsHandler } from './queries/list-clients/list-clients.handler';

const HANDLERS = [
  RegisterClientHandler,
  UpdateClientHandler,
  RotateClientSecretHandler,
  DisableClientHandler,
  BootstrapAdminClientHandler,
  BootstrapServiceClientHandler,
  GetClientHandler,
  ListClientsHandler,
];

/** The client registry's use cases, shared by the HTTP admin API and the command-line tool. */
@Module({
  providers: [
    ClientRepository,
    NewClientFactory,
    ClientEventsPublisher,
    { provide: ClientUnitOfWork, useClass: TypeOrmClientUnitOfWork },
    ...HANDLERS,
  ],
  exports: [ClientRepository, ...HANDLERS],
})
export class ClientsModule {}
