import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth.config';
import { BootstrapAdminClientHandler } from './commands/bootstrap-admin-client/bootstrap-admin-client.handler';

/** At service start: creates the configured first admin client if no admin client exists (see the handler). */
@Injectable()
export class BootstrapAdminOnStart implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapAdminOnStart.name);

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly bootstrap: BootstrapAdminClientHandler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const admin = this.config.bootstrapAdmin;
    if (admin === undefined) return;
    const outcome = await this.bootstrap.execute(admin);
    if (outcome === 'id-taken') {
      this.logger.warn({
        msg: 'Bootstrap admin client not created: a non-admin client has this id',
        clientId: admin.clientId,
      });
    } else {
      this.logger.log({ msg: 'Bootstrap admin client', clientId: admin.clientId, outcome });
    }
  }
}
