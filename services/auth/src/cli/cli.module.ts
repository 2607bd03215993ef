import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Outbox } from '@lx/messaging';
import { DatabaseModule } from '@lx/platform';
import { ClientsModule } from '../clients/clients.module';
import { CommonModule } from '../common/common.module';
import type { AuthConfig } from '../config/auth.config';
import { ENTITIES } from '../database/entities';
import { MIGRATIONS } from '../database/migrations';
import { KeysModule } from '../keys/keys.module';

/**
 * The CLI only appends to the outbox; the running service's relay publishes the rows (within its poll interval),
 * so the tool needs no Kafka connection of its own.
 */
@Global()
@Module({ providers: [Outbox], exports: [Outbox] })
class AppendOnlyOutboxModule {}

/** What the command-line tool runs on: the service's use cases and database, without HTTP or Kafka. */
@Module({})
export class CliModule {
  static register(config: AuthConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        CommonModule.forRoot(config),
        DatabaseModule.forRoot({ config: config.database, entities: ENTITIES, migrations: MIGRATIONS }),
        AppendOnlyOutboxModule,
        ClientsModule,
        KeysModule,
      ],
    };
  }
}
