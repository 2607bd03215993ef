import type { ClientKind, Scope } from '@lx/contracts';
import { DomainError } from '@lx/domain';

/** Who a verified access token speaks for. */
export interface Principal {
  clientId: string;
  scopes: readonly string[];
  tokenId: string;
  /** The token's `iat`, whole seconds since the epoch: revocation refuses tokens issued before a client's cut-off. */
  issuedAt: number;
  /** The `kid` of the key that signed the token: revocation refuses every token of a revoked key. */
  signingKeyId: string;
  /** The client's kind (the token's `client_kind`), which rate limits go by; absent in tokens issued before it. */
  kind?: ClientKind;
}

/** The realm every service names in its WWW-Authenticate challenges. */
export const AUTH_REALM = 'location-exchange';

/** RFC 6750 error attribute for WWW-Authenticate; absent when the request carried no credentials. */
export type BearerError = 'invalid_request' | 'invalid_token';

const quoted = (value: string) => value.replace(/["\\]/g, "'");

/** Missing or invalid credentials: 401 UNAUTHORIZED with a WWW-Authenticate challenge (`headers`). */
export class AuthenticationError extends DomainError {
  readonly code = 'UNAUTHORIZED' as const;

  constructor(
    message: string,
    readonly bearerError?: BearerError,
  ) {
    super(message);
  }

  override get headers(): Readonly<Record<string, string>> {
    return { 'www-authenticate': bearerChallenge(this) };
  }
}

/** The WWW-Authenticate value for a 401 (RFC 6750 section 3). */
export function bearerChallenge(error: AuthenticationError): string {
  if (!error.bearerError) return `Bearer realm="${AUTH_REALM}"`;
  return `Bearer realm="${AUTH_REALM}", error="${error.bearerError}", error_description="${quoted(error.message)}"`;
}

/** A valid token without the scope the route needs: 403 FORBIDDEN, details naming the scope. */
export class InsufficientScopeError extends DomainError {
  readonly code = 'FORBIDDEN' as const;
  declare readonly details: { requiredScope: Scope };

  constructor(requiredScope: Scope) {
    super(`The access token lacks the scope ${requiredScope} this operation needs`, { requiredScope });
  }

  /** RFC 6750 section 3.1: 403 with error="insufficient_scope" and the scope needed. */
  override get headers(): Readonly<Record<string, string>> {
    const { requiredScope } = this.details;
    return {
      'www-authenticate': `Bearer realm="${AUTH_REALM}", error="insufficient_scope", error_description="${quoted(this.message)}", scope="${requiredScope}"`,
    };
  }
}

/** A route that states no scope is closed to every token (deny by default): 403 FORBIDDEN. */
export class UndeclaredScopeError extends DomainError {
  readonly code = 'FORBIDDEN' as const;

  constructor() {
    super('This operation is not open to access tokens');
  }
}
