import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type TokenResponse, uuidSchema } from '@lx/contracts';
import { Clock } from '@lx/platform';
import { SecretHasher } from '../../../common/secret-hasher';
import { tokenIssuedAt } from '../../../clients/domain/client';
import { ClientRepository } from '../../../clients/infrastructure/client.repository';
import { AUTH_CONFIG, type AuthConfig } from '../../../config/auth.config';
import {
  type FailureCounter,
  knownSourcesSince,
  retryAfterSeconds,
  type ThrottleSubject,
  throttleSubjects,
} from '../../domain/failure-window';
import { clientAuthenticationFailed, OAuthError } from '../../domain/oauth.error';
import { grantScopes } from '../../domain/scope-grant';
import type { TokenRequest } from '../../domain/token-request';
import { AccessTokenSigner } from '../../infrastructure/access-token.signer';
import { TokenThrottleRepository } from '../../infrastructure/token-throttle.repository';

export type IssueTokenCommand = TokenRequest & {
  /** Where the request came from (sourceOf the caller's address behind the trusted proxies). */
  source: string;
};

/**
 * The client credentials grant: authenticates the client, throttling failures, grants the requested scopes if the
 * client holds them all, signs the token.
 *
 * Throttling (429 until the window ends) counts each attempt as under way before the secret is checked, so a parallel
 * burst gets no more checks than failures are left (the others 429 for a second), then as a failure or not. An attempt from a source the
 * client has authenticated from before counts only against that client and source: nobody elsewhere can lock the
 * rightful client out there, however many secrets they guess for its id. Any other attempt counts against its
 * source (whatever client ids it tries) and against the client id (wherever the attempts come from). Unknown and
 * disabled client ids are checked against a stand-in hash, so they cost and take as long as a wrong secret of an
 * enabled client: the answer says nothing about which ids exist.
 */
@Injectable()
export class IssueTokenHandler {
  /** A hash no secret matches, computed once: what unknown and disabled ids are checked against. */
  private standIn?: Promise<string>;

  constructor(
    private readonly clients: ClientRepository,
    private readonly throttle: TokenThrottleRepository,
    private readonly hasher: SecretHasher,
    private readonly signer: AccessTokenSigner,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async execute(command: IssueTokenCommand): Promise<TokenResponse> {
    // Client ids are UUIDs; anything else cannot authenticate and is neither looked up nor counted.
    if (!uuidSchema.safeParse(command.clientId).success) throw clientAuthenticationFailed();

    const now = this.clock.now();
    const { failureLimit, sourceFailureLimit, failureWindowSeconds, knownSourceDays } = this.config.tokens;
    const policy = { clientLimit: failureLimit, sourceLimit: sourceFailureLimit, windowSeconds: failureWindowSeconds };
    const known = await this.throttle.isKnownSource(
      command.clientId,
      command.source,
      knownSourcesSince(now, knownSourceDays),
    );
    const begun = await this.begin(throttleSubjects(command.clientId, command.source, known, policy), now);

    let matches = false;
    try {
      const client = await this.clients.findById(command.clientId);
      const enabled = client !== null && client.enabled;
      // Checked whether or not the id is known and enabled: the same cost and time either way.
      const secretMatches = await this.hasher.verify(
        command.clientSecret,
        enabled ? client.secretHash : await this.standInHash(),
      );
      if (!enabled || !secretMatches) throw clientAuthenticationFailed();
      matches = true;
      await this.throttle.rememberSource(client.id, command.source, now);
      const scopes = grantScopes(command.scopes, client.scopes);
      const accessToken = await this.signer.sign({
        clientId: client.id,
        kind: client.kind,
        scopes,
        issuedAt: tokenIssuedAt(client, now),
      });
      return {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: this.signer.ttlSeconds,
        scope: scopes.join(' '),
      };
    } finally {
      await Promise.all(
        begun.map(({ subject, counter }) =>
          this.throttle.end(subject.key, counter.windowStart, matches ? `succeeded-${subject.onSuccess}` : 'failed'),
        ),
      );
    }
  }

  /**
   * Begins the attempt on each subject in turn, the source's first: past a limit it is refused (429) before the next
   * subject is counted (a flood of made-up ids from a throttled address writes no row per id) and the secret checked.
   */
  private async begin(
    subjects: readonly ThrottleSubject[],
    now: Date,
  ): Promise<{ subject: ThrottleSubject; counter: FailureCounter }[]> {
    const windowSeconds = this.config.tokens.failureWindowSeconds;
    const begun: { subject: ThrottleSubject; counter: FailureCounter }[] = [];
    for (const subject of subjects) {
      const counter = await this.throttle.begin(subject.key, now, windowSeconds);
      begun.push({ subject, counter });
      const retryAfter = retryAfterSeconds(subject, counter, now, windowSeconds);
      if (retryAfter !== null) {
        await Promise.all(
          begun.map((entry) => this.throttle.end(entry.subject.key, entry.counter.windowStart, 'not-checked')),
        );
        throw new OAuthError(
          'temporarily_unavailable',
          `Too many failed authentications for this client or from this address; retry in ${retryAfter} s`,
          retryAfter,
        );
      }
    }
    return begun;
  }

  private standInHash(): Promise<string> {
    this.standIn ??= this.hasher.hash(randomBytes(32).toString('base64url'));
    return this.standIn;
  }
}
