import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth.config';
import { BootstrapAdminClientHandler } from './commands/bootstrap-admin-client/bootstrap-admin-client.handler';
import { BootstrapServiceClientHandler } from './commands/bootstrap-service-client/bootstrap-service-client.handler';

/**
 * At service start: creates the configured first admin client if no admin client exists, and the configured internal
 * services' client if no client has its id (see the handlers).
 */
@Injectable()
export class BootstrapClientsOnStart implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapClientsOnStart.name);

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly bootstrapAdmin: BootstrapAdminClientHandler,
    private readonly bootstrapService: BootstrapServiceClientHandler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { bootstrapAdmin: admin, bootstrapService: service } = this.config;
    if (admin !== undefined) {
      const outcome = await this.bootstrapAdmin.execute(admin);
      this.report('admin', admin.clientId, outcome);
    }
    if (service !== undefined) {
      const outcome = await this.bootstrapService.execute(service);
      this.report('service', service.clientId, outcome);
    }
  }

  private report(which: 'admin' | 'service', clientId: string, outcome: string): void {
    if (outcome === 'id-taken') {
      // For the service client this stops every export (its peers answer 403): an error, with the way out.
      this.logger.error({
        msg:
          `Bootstrap ${which} client not created: a client of another kind has this id; give the bootstrap ` +
          'another id, or disable that client and register none under this id',
        clientId,
      });
    } else {
      this.logger.log({ msg: `Bootstrap ${which} client`, clientId, outcome });
    }
  }
}
