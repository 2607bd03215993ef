import { Injectable } from '@nestjs/common';
import { NewClientFactory } from '../../infrastructure/new-client.factory';
import { ClientUnitOfWork } from '../../infrastructure/client.unit-of-work';

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
    private readonly unitOfWork: ClientUnitOfWork,
    private readonly factory: NewClientFactory,
  ) {}

  async execute(command: BootstrapAdminClientCommand): Promise<BootstrapOutcome> {
    const { client } = await this.factory.create({
      id: command.clientId,
      secret: command.clientSecret,
      name: 'bootstrap admin',
      kind: 'ADMIN',
    });
    return this.unitOfWork.run(async (transaction) => {
      // Replicas starting together: one creates the client, the others then see it.
      await transaction.lock('auth:bootstrap-admin');
      if (await transaction.existsOfKind('ADMIN')) return 'admin-exists';
      if ((await transaction.findById(client.id)) !== null) return 'id-taken';
      await transaction.insert(client);
      await transaction.append('CLIENT_REGISTERED', client);
      return 'created';
    });
  }
}
