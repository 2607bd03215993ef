import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { type RevocationList, revocationListSchema } from '@lx/contracts';
import { DependencyUnavailableError } from '@lx/domain';
import type { AuthConfig } from '../config/config';
import { AccessTokenVerifier } from './access-token.verifier';
import { AuthenticationError, type Principal } from './authentication.errors';

/** The revocations in force, shaped for one lookup per request. */
export class RevocationSet {
  static readonly EMPTY = new RevocationSet({ clients: [], signingKeys: [] });

  private readonly issuedBefore: ReadonlyMap<string, number>;
  private readonly signingKeys: ReadonlySet<string>;

  constructor(list: RevocationList) {
    this.issuedBefore = new Map(list.clients.map((entry) => [entry.clientId, entry.tokensIssuedBefore]));
    this.signingKeys = new Set(list.signingKeys);
  }

  /** Whether every token of the signing key `kid` is revoked. */
  revokesKey(kid: string): boolean {
    return this.signingKeys.has(kid);
  }

  /** Why the token of `principal` is revoked, or undefined when it is not. */
  refusalOf(principal: Pick<Principal, 'clientId' | 'issuedAt' | 'signingKeyId'>): string | undefined {
    if (this.revokesKey(principal.signingKeyId)) return 'The access token was signed by a revoked key';
    const before = this.issuedBefore.get(principal.clientId);
    if (before !== undefined && principal.issuedAt < before) return 'The access token has been revoked';
    return undefined;
  }
}

/** Port: the revocations a verifier applies; rejects when it has none to go by (the token is then answered 503). */
export abstract class Revocations {
  abstract current(): Promise<RevocationSet>;
}

/**
 * Refuses tokens the auth service has revoked (a disabled client's, a client's issued before its secret was rotated
 * or its scopes narrowed, every token of a revoked signing key), after `inner` has checked signature and claims.
 * Outside any cache of `inner`, so a token verified a moment ago is refused as soon as its revocation is known.
 */
export class RevocationCheckingVerifier extends AccessTokenVerifier {
  constructor(
    private readonly inner: AccessTokenVerifier,
    private readonly revocations: Revocations,
  ) {
    super();
  }

  async verify(token: string): Promise<Principal> {
    const principal = await this.inner.verify(token);
    const refusal = (await this.revocations.current()).refusalOf(principal);
    if (refusal !== undefined) throw new AuthenticationError(refusal, 'invalid_token');
    return principal;
  }
}

/** How long one fetch of the list may take. */
const FETCH_TIMEOUT_MS = 2_000;

/**
 * The auth service's revocation list as every other service holds it: polled from the start of the service every
 * `revocationsRefreshMs` with `If-None-Match` (an unchanged list is a 304 without a body), so a revocation reaches
 * every replica within that time plus one round trip. Until a first list has been had, tokens cannot be verified
 * (503, as while the JWKS cannot be had; a request then also tries once itself). Afterwards a failed poll keeps the
 * last list (an outage of the auth service does not stop the API; the list can only change through the auth service
 * anyway): counted (`auth_revocations_refresh_failures_total`), logged once per run of failures, and visible as
 * `auth_revocations_age_seconds` (since the list in force was confirmed, or since the polling began). An auth service
 * that answers 404 (an older release) revokes nothing: see withoutList.
 */
export class PolledRevocations extends Revocations implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PolledRevocations.name);
  private set?: RevocationSet;
  private etag?: string;
  private startedAt?: number;
  private confirmedAt?: number;
  private loading?: Promise<RevocationSet>;
  /** The last poll failed (or found no list): the next success is logged. */
  private failing = false;
  private timer?: NodeJS.Timeout;
  private readonly failures?: Counter;

  constructor(
    private readonly config: Readonly<Pick<AuthConfig, 'revocationsUrl' | 'revocationsRefreshMs'>>,
    registry?: Registry,
    private readonly now: () => number = Date.now,
  ) {
    super();
    if (registry === undefined) return;
    this.failures = new Counter({
      name: 'auth_revocations_refresh_failures_total',
      help: "Polls of the auth service's revocation list that failed or found none (the last list stays in force)",
      registers: [registry],
    });
    const age = () => {
      const since = this.confirmedAt ?? this.startedAt;
      return since === undefined ? 0 : (this.now() - since) / 1000;
    };
    new Gauge({
      name: 'auth_revocations_age_seconds',
      help: 'Seconds since the revocation list in force was confirmed by the auth service (or since polling began)',
      registers: [registry],
      collect() {
        this.set(age());
      },
    });
  }

  onModuleInit(): void {
    this.start();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Begins polling (once): a first fetch now, then one every revocationsRefreshMs. */
  start(): void {
    if (this.timer !== undefined) return;
    this.startedAt = this.now();
    const poll = () => void this.refresh().catch((error: unknown) => this.failed(error));
    this.timer = setInterval(poll, this.config.revocationsRefreshMs);
    this.timer.unref();
    poll();
  }

  current(): Promise<RevocationSet> {
    if (this.set !== undefined) return Promise.resolve(this.set);
    this.start();
    return this.refresh().catch((error: unknown) => {
      this.failed(error);
      throw new DependencyUnavailableError('Access tokens cannot be verified right now');
    });
  }

  /** One fetch at a time: callers arriving meanwhile share it. */
  private refresh(): Promise<RevocationSet> {
    this.loading ??= this.fetchList().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async fetchList(): Promise<RevocationSet> {
    const response = await fetch(this.config.revocationsUrl, {
      headers: this.etag === undefined || this.set === undefined ? {} : { 'if-none-match': this.etag },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (response.status === 404) return this.withoutList();
    if (response.status === 304 && this.set !== undefined) return this.confirmed(this.set);
    if (response.status !== 200) throw new Error(`${this.config.revocationsUrl} answered ${response.status}`);
    const set = new RevocationSet(revocationListSchema.parse(await response.json()));
    this.set = set;
    this.etag = response.headers.get('etag') ?? undefined;
    return this.confirmed(set);
  }

  private confirmed(set: RevocationSet): RevocationSet {
    this.confirmedAt = this.now();
    if (this.failing) this.logger.log({ msg: 'The revocation list is polled again', url: this.config.revocationsUrl });
    this.failing = false;
    return set;
  }

  private failed(error: unknown): void {
    this.failures?.inc();
    if (!this.failing) {
      this.logger.warn({
        msg: 'The revocation list could not be had; the last one stays in force',
        url: this.config.revocationsUrl,
        error: String(error),
      });
    }
    this.failing = true;
  }

  /**
   * An auth service of a release before revocation existed (while a rolling upgrade replaces it) serves no list: then
   * nothing is revoked yet, and verification goes on with the last list or none. Counted and logged as a failed poll
   * (a wrong AUTH_REVOCATIONS_URL looks the same); the age of the list in force is not renewed.
   */
  private withoutList(): RevocationSet {
    this.failed(new Error(`${this.config.revocationsUrl} answered 404: the auth service serves no revocation list`));
    this.set ??= RevocationSet.EMPTY;
    return this.set;
  }
}
