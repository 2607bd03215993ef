import { Passport } from 'passport';
import { Strategy as BearerStrategy, type VerifyFunction } from 'passport-http-bearer';
import type { AccessTokenVerifier } from './access-token.verifier';
import { AUTH_REALM, AuthenticationError, type Principal } from './authentication.errors';

const STRATEGY = 'bearer';

/**
 * The single place that turns an `Authorization: Bearer` header into a principal: a passport-http-bearer strategy
 * whose verify callback is the service's AccessTokenVerifier. Runs outside any framework middleware (before
 * routing, see AuthenticationModule), so it uses a private Passport instance and no session.
 */
export class BearerAuthenticator {
  private readonly passport = new Passport();

  constructor(verifier: AccessTokenVerifier) {
    const verify: VerifyFunction = (token, done) => {
      verifier.verify(token).then(
        (principal) => done(null, principal),
        (error: unknown) => done(error),
      );
    };
    this.passport.use(STRATEGY, new BearerStrategy({ realm: AUTH_REALM }, verify));
  }

  /** Resolves with the token's principal; rejects with AuthenticationError (401) or the verifier's own failure. */
  authenticate(authorization: string | undefined): Promise<Principal> {
    // Only the header is offered to the strategy: RFC 6750 query tokens end up in access logs, and the body is not
    // parsed yet when authentication runs.
    const request = { headers: authorization === undefined ? {} : { authorization } };
    return new Promise<Principal>((resolve, reject) => {
      const middleware = this.passport.authenticate(
        STRATEGY,
        { session: false },
        (error: unknown, principal: Principal | false | undefined) => {
          if (error) reject(error instanceof Error ? error : new Error('Bearer authentication failed'));
          else if (principal) resolve(principal);
          else reject(noBearerToken(authorization));
        },
      ) as (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
      middleware(request, {}, reject);
    });
  }
}

/** The strategy failed without reaching the verifier: no header, another scheme, or a malformed header. */
function noBearerToken(authorization: string | undefined): AuthenticationError {
  return authorization === undefined || authorization.trim() === ''
    ? new AuthenticationError('Missing bearer token')
    : new AuthenticationError('Authorization header is not "Bearer <token>"', 'invalid_request');
}
