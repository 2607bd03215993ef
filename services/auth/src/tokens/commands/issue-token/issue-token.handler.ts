import { Inject, Injectable } from '@nestjs/common';
import { type TokenResponse, uuidSchema } from '@lx/contracts';
import { Clock } from '@lx/platform';
import { SecretHasher } from '../../../common/secret-hasher';
import { ClientRepository } from '../../../clients/infrastructure/client.repository';
import { AUTH_CONFIG, type AuthConfig } from '../../../config/auth.config';
import { retryAfterSeconds } from '../../domain/failure-window';
import { clientAuthenticationFailed, OAuthError } from '../../domain/oauth.error';
import { grantScopes } from '../../domain/scope-grant';
import type { TokenRequest } from '../../domain/token-request';
import { AccessTokenSigner } from '../../infrastructure/access-token.signer';
import { TokenFailuresRepository } from '../../infrastructure/token-failures.repository';

export type IssueTokenCommand = TokenRequest;

/**
 * The client credentials grant: authenticates the client, refuses a client id with too many recent failures
 * (429 until its window ends), grants the requested scopes if the client holds them all, signs the token.
 *
 * Every failure counts towards the limit of its client id, whether the id is unknown, disabled or given a wrong
 * secret, so all ids behave alike. Only an enabled client's secret costs the slow hash check: unknown and disabled
 * ids are refused without it (which tells a caller that such an id cannot log in, no help in guessing a 122-bit
 * random id), so floods of made-up ids, or a disabled client retrying, cannot burn CPU on scrypt.
 */
@Injectable()
export class IssueTokenHandler {
  constructor(
    private readonly clients: ClientRepository,
    private readonly failures: TokenFailuresRepository,
    private readonly hasher: SecretHasher,
    private readonly signer: AccessTokenSigner,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async execute(command: IssueTokenCommand): Promise<TokenResponse> {
    // Client ids are UUIDs; anything else cannot authenticate and is neither looked up nor counted.
    if (!uuidSchema.safeParse(command.clientId).success) throw clientAuthenticationFailed();

    const now = this.clock.now();
    const { failureLimit: limit, failureWindowSeconds: windowSeconds } = this.config.tokens;
    const counter = await this.failures.find(command.clientId);
    const retryAfter = retryAfterSeconds(counter, now, { limit, windowSeconds });
    if (retryAfter !== null) {
      throw new OAuthError(
        'temporarily_unavailable',
        `Too many failed authentications for this client; retry in ${retryAfter} s`,
        retryAfter,
      );
    }

    const client = await this.clients.findById(command.clientId);
    if (client === null || !client.enabled || !(await this.hasher.verify(command.clientSecret, client.secretHash))) {
      await this.failures.record(command.clientId, now, windowSeconds);
      throw clientAuthenticationFailed();
    }
    if (counter !== null) await this.failures.clear(client.id);

    const scopes = grantScopes(command.scopes, client.scopes);
    const accessToken = await this.signer.sign({ clientId: client.id, scopes, issuedAt: now });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.signer.ttlSeconds,
      scope: scopes.join(' '),
    };
  }
}
