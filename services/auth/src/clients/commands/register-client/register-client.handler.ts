import { Injectable } from '@nestjs/common';
import type { RegisteredClient, RegisterClientRequest } from '@lx/contracts';
import { toClientView } from '../../domain/client';
import { NewClientFactory } from '../../infrastructure/new-client.factory';
import { ClientUnitOfWork } from '../../infrastructure/client.unit-of-work';

export type RegisterClientCommand = RegisterClientRequest & {
  /** Travels into the event's lx-correlation-id header (the HTTP request id). */
  correlationId?: string;
};

/** Registers a client with generated secrets, which the reply shows this once; publishes CLIENT_REGISTERED. */
@Injectable()
export class RegisterClientHandler {
  constructor(
    private readonly unitOfWork: ClientUnitOfWork,
    private readonly factory: NewClientFactory,
  ) {}

  async execute(command: RegisterClientCommand): Promise<RegisteredClient> {
    const { correlationId, ...request } = command;
    const { client, secrets } = await this.factory.create(request);
    await this.unitOfWork.run(async (transaction) => {
      await transaction.insert(client);
      await transaction.append('CLIENT_REGISTERED', client, { correlationId });
    });
    return { ...toClientView(client), ...secrets };
  }
}
