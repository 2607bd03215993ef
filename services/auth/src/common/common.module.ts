import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SecretBox, SystemClock, WebhookSecretTransport } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth.config';
import { SecretHasher } from './secret-hasher';

/**
 * The configuration and the ports and helpers every feature of the auth service shares: clock, encryption at rest,
 * the webhook secrets' sealing for events, secret hashing.
 */
@Global()
@Module({})
export class CommonModule {
  static forRoot(config: AuthConfig): DynamicModule {
    return {
      module: CommonModule,
      providers: [
        { provide: AUTH_CONFIG, useValue: config },
        { provide: Clock, useClass: SystemClock },
        { provide: SecretBox, useFactory: () => new SecretBox(Buffer.from(config.encryptionKeyBase64, 'base64')) },
        {
          provide: WebhookSecretTransport,
          useFactory: () => new WebhookSecretTransport(Buffer.from(config.webhookSecretTransportKeyBase64, 'base64')),
        },
        { provide: SecretHasher, useFactory: () => new SecretHasher() },
      ],
      exports: [AUTH_CONFIG, Clock, SecretBox, WebhookSecretTransport, SecretHasher],
    };
  }
}
