import type { ServiceClientConfig } from '../config/config';
import type { Clock } from '../ports/clock';
import { clientCredentialsToken } from './client-credentials-token';

/** A token is renewed this long before its `exp`, so no call leaves with a token about to expire. */
const RENEW_BEFORE_EXPIRY_MS = 60_000;

/** `exp` (seconds since the epoch) of a JWT, read without verifying: the issuer verifies, the holder only schedules. */
export function jwtExpiry(token: string): Date | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const { exp } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof exp === 'number' && Number.isFinite(exp) ? new Date(exp * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The access token a service presents to other services' internal endpoints: obtained by the client-credentials grant
 * with the service's own client, reused until shortly before it expires, and fetched once however many callers ask
 * at the same time. A token without a readable `exp` is used for one call only.
 */
export class ServiceTokenProvider {
  private cached?: { token: string; renewAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly config: Readonly<ServiceClientConfig>,
    private readonly clock: Clock,
    private readonly request: typeof clientCredentialsToken = clientCredentialsToken,
  ) {}

  async token(): Promise<string> {
    if (this.cached !== undefined && this.clock.now().getTime() < this.cached.renewAt) return this.cached.token;
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forgets the cached token, e.g. after a peer answered 401 to it. */
  invalidate(): void {
    this.cached = undefined;
  }

  private async fetch(): Promise<string> {
    const token = await this.request({
      tokenUrl: this.config.tokenUrl,
      clientId: this.config.clientId,
      clientSecret: this.config.clientSecret,
    });
    const expiry = jwtExpiry(token);
    this.cached = expiry === undefined ? undefined : { token, renewAt: expiry.getTime() - RENEW_BEFORE_EXPIRY_MS };
    return token;
  }
}
