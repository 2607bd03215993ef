import { type DynamicModule, Module } from '@nestjs/common';
import { REVOCATIONS_PATH } from '@lx/contracts';
import { EventBusReadinessCheck, MessagingModule, OutboxModule } from '@lx/messaging';
import {
  AuthenticationModule,
  DatabaseModule,
  DatabaseReadinessCheck,
  HealthModule,
  MetricsModule,
} from '@lx/platform';
import { BootstrapClientsOnStart } from './clients/bootstrap-clients.on-start';
import { ClientsModule } from './clients/clients.module';
import { ClientsController } from './clients/http/clients.controller';
import { CommonModule } from './common/common.module';
import type { AuthConfig } from './config/auth.config';
import { ENTITIES } from './database/entities';
import { MIGRATIONS } from './database/migrations';
import { ApiDocumentationController, DOCUMENTATION_PATHS } from './discovery/http/api-documentation.controller';
import {
  AuthorizationServerMetadataController,
  METADATA_PATHS,
} from './discovery/http/authorization-server-metadata.controller';
import { EnsureSigningKeyOnStart } from './keys/ensure-signing-key.on-start';
import { JWKS_PATH, JwksController } from './keys/http/jwks.controller';
import { SigningKeysController } from './keys/http/signing-keys.controller';
import { LocalAccessTokenVerifier } from './keys/infrastructure/local-access-token.verifier';
import { KeysModule } from './keys/keys.module';
import { RevocationsController } from './tokens/http/revocations.controller';
import { TokenContentTypes } from './tokens/http/token-content-types';
import { TOKEN_PATH, TokenController } from './tokens/http/token.controller';
import { LocalRevocations } from './tokens/infrastructure/local-revocations';
import { TokensModule } from './tokens/tokens.module';

@Module({})
export class AppModule {
  static register(config: AuthConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CommonModule.forRoot(config),
        MetricsModule,
        AuthenticationModule.forRoot({
          config: config.auth,
          publicPaths: [TOKEN_PATH, JWKS_PATH, REVOCATIONS_PATH, ...METADATA_PATHS, ...DOCUMENTATION_PATHS],
          // Its own admin API trusts its own key store and revocations; other services fetch the JWKS and the list.
          verifier: LocalAccessTokenVerifier,
          revocations: LocalRevocations,
          imports: [KeysModule, TokensModule],
        }),
        DatabaseModule.forRoot({ config: config.database, entities: ENTITIES, migrations: MIGRATIONS }),
        MessagingModule.forRoot(config.eventBus),
        OutboxModule.forRoot(config.outbox),
        HealthModule.forRoot([DatabaseReadinessCheck, EventBusReadinessCheck], config.http.readinessGraceMs),
        ClientsModule,
        KeysModule,
        TokensModule,
      ],
      controllers: [
        TokenController,
        JwksController,
        AuthorizationServerMetadataController,
        ApiDocumentationController,
        ClientsController,
        SigningKeysController,
        RevocationsController,
      ],
      providers: [TokenContentTypes, EnsureSigningKeyOnStart, BootstrapClientsOnStart],
    };
  }
}
