import {
  createRemoteJWKSet,
  errors as joseErrors,
  type JWTHeaderParameters,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
} from 'jose';
import { CLIENT_KINDS, type ClientKind } from '@lx/contracts';
import { DependencyUnavailableError } from '@lx/domain';
import type { AuthConfig } from '../config/config';
import { AuthenticationError, type Principal } from './authentication.errors';

/** Port: checks an access token and says whom it speaks for; throws AuthenticationError otherwise. */
export abstract class AccessTokenVerifier {
  abstract verify(token: string): Promise<Principal>;
}

/** Signature algorithms the auth service signs with; anything else, `none` included, is refused before any key lookup. */
export const ACCESS_TOKEN_ALGORITHMS = ['ES256', 'EdDSA'] as const;

/** Seconds of clock skew tolerated between the auth service and a verifying service. */
export const CLOCK_TOLERANCE_SECONDS = 5;

/** How long a service keeps the key set, and how often an unknown key id may trigger a refetch at most. */
export const JWKS_CACHE_MAX_AGE_MS = 600_000;
export const JWKS_REFETCH_COOLDOWN_MS = 30_000;

function reasonOf(error: joseErrors.JOSEError): string {
  if (error instanceof joseErrors.JWTExpired) return 'The access token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    return error.claim === 'nbf'
      ? 'The access token is not yet valid'
      : `The access token's ${error.claim} claim is not accepted`;
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The access token signature is invalid';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'The access token was signed by an unknown key';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The access token algorithm is not accepted';
  return 'The access token is malformed or invalid';
}

/** Failures that say nothing about the token, only that the key set could not be had: answered 503, not 401. */
function isKeySetFailure(error: unknown): boolean {
  if (!(error instanceof joseErrors.JOSEError)) return true;
  // jose raises the bare JOSEError class for a non-200 key-set response.
  return (
    error instanceof joseErrors.JWKSTimeout ||
    error instanceof joseErrors.JWKSInvalid ||
    error.constructor === joseErrors.JOSEError
  );
}

/** The token's `client_kind` when it names a kind; tokens issued before the claim existed have none. */
function kindOf(claim: unknown): { kind?: ClientKind } {
  const kind = CLIENT_KINDS.find((known) => known === claim);
  return kind === undefined ? {} : { kind };
}

function principalOf(payload: JWTPayload, header: JWTHeaderParameters, nowSeconds: number): Principal {
  // jose checks iat only against a maximum age; a token issued in the future is not valid yet either.
  if (typeof payload.iat === 'number' && payload.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) {
    throw new AuthenticationError('The access token is not yet valid', 'invalid_token');
  }
  if (
    typeof payload.scope !== 'string' ||
    !payload.sub ||
    !payload.jti ||
    typeof payload.iat !== 'number' ||
    header.kid === undefined
  ) {
    throw new AuthenticationError('The access token is malformed or invalid', 'invalid_token');
  }
  return {
    clientId: payload.sub,
    scopes: payload.scope.split(' ').filter(Boolean),
    tokenId: payload.jti,
    issuedAt: payload.iat,
    signingKeyId: header.kid,
    ...kindOf(payload.client_kind),
  };
}

/**
 * Verifies JWT access tokens: signature by one of `keys` with an accepted algorithm, issuer (the configured one or an
 * accepted former one), audience, expiry, not-before, issued-at, subject and token id. Every service uses the remote
 * variant below; the auth service looks keys up in its own store.
 */
export class JwtAccessTokenVerifier extends AccessTokenVerifier {
  constructor(
    private readonly config: Readonly<Pick<AuthConfig, 'issuer' | 'acceptedIssuers' | 'audience'>>,
    private readonly keys: JWTVerifyGetKey,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  async verify(token: string): Promise<Principal> {
    const currentDate = new Date(this.now());
    let payload: JWTPayload;
    let header: JWTHeaderParameters;
    try {
      ({ payload, protectedHeader: header } = await jwtVerify(token, this.keys, {
        // The current issuer, and any former one whose tokens may still be valid (AUTH_ACCEPTED_ISSUERS).
        issuer: [this.config.issuer, ...this.config.acceptedIssuers],
        audience: this.config.audience,
        algorithms: [...ACCESS_TOKEN_ALGORITHMS],
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate,
      }));
    } catch (error) {
      if (error instanceof AuthenticationError || error instanceof DependencyUnavailableError) throw error;
      if (isKeySetFailure(error)) {
        // The token is not known to be bad; we just cannot tell now.
        throw new DependencyUnavailableError('Access tokens cannot be verified right now');
      }
      throw new AuthenticationError(reasonOf(error as joseErrors.JOSEError), 'invalid_token');
    }
    return principalOf(payload, header, Math.floor(currentDate.getTime() / 1000));
  }
}

/**
 * Verifies access tokens locally against the auth service's JWKS. jose caches the key set and refetches it when a
 * token names an unknown key id, at most once per cooldown, so tokens with made-up key ids cannot make a service
 * hammer the auth service.
 */
export class JwksAccessTokenVerifier extends JwtAccessTokenVerifier {
  constructor(config: Readonly<Pick<AuthConfig, 'jwksUrl' | 'issuer' | 'acceptedIssuers' | 'audience'>>) {
    super(
      config,
      createRemoteJWKSet(new URL(config.jwksUrl), {
        cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
        cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
        timeoutDuration: 2_000,
      }),
    );
  }
}
