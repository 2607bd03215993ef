import type { OAuthErrorCode } from '@lx/contracts';

/**
 * A refused token request, answered in the RFC 6749 section 5.2 shape (not the spec's error envelope): standard
 * OAuth client libraries parse that shape.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** Set on 429: seconds until the client id may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  /** 401 for failed client authentication (section 5.2), 429 while throttled, 400 otherwise. */
  get status(): number {
    if (this.error === 'invalid_client') return 401;
    if (this.error === 'temporarily_unavailable') return 429;
    return 400;
  }
}

/** Client authentication failed. One message for every cause, so callers cannot probe which client ids exist. */
export const clientAuthenticationFailed = () => new OAuthError('invalid_client', 'Client authentication failed');
