import {
  type BeforeApplicationShutdown,
  type CanActivate,
  type DynamicModule,
  type ExecutionContext,
  Inject,
  Injectable,
  Module,
  SetMetadata,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter } from 'prom-client';
import { type ClientKind, SCOPES } from '@lx/contracts';
import { RateLimitExceededError } from '@lx/domain';
import type { Principal } from '../auth/authentication.errors';
import type { RateLimitConfig } from '../config/config';
import { MetricsRegistry } from '../metrics/metrics';
import { Clock, SystemClock } from '../ports/clock';
import { IntervalRound } from '../schedule/interval-round';
import { decide, rateLimitHeaders, windowStartOf } from './rate-limit';
import { SharedRateCounts } from './shared-rate-counts';

export * from './rate-limit';
export * from './shared-rate-counts';

const RATE_LIMITED = 'lx:rate-limited';
const RATE_LIMIT_CONFIG = Symbol('RATE_LIMIT_CONFIG');
/** How often the table's rows of past windows are deleted, and at most how many in one statement. */
const PURGE_INTERVAL_MS = 60_000;
const PURGE_BATCH = 10_000;

/** Counts the requests of a route (on a handler or a whole controller) against the caller's quota (RATE_LIMITS). */
export const RateLimited = () => SetMetadata(RATE_LIMITED, true);

@Injectable()
class RateLimitMetrics {
  readonly refused: Counter<'kind'>;
  readonly syncFailures: Counter;
  constructor(metrics: MetricsRegistry) {
    this.refused = new Counter({
      name: 'http_rate_limited_total',
      help: 'Requests refused with 429 because their client had spent its quota (RATE_LIMITS), by client kind',
      labelNames: ['kind'] as const,
      registers: [metrics.registry],
    });
    this.syncFailures = new Counter({
      name: 'rate_limit_sync_failures_total',
      help: "Syncs of this replica's rate-limit counts with the shared table that failed (the database away)",
      registers: [metrics.registry],
    });
  }
}

/** The kind a principal's requests count as: its token's; an older token's by its scopes (see RateLimitGuard). */
function kindOf(principal: Principal): ClientKind {
  if (principal.kind !== undefined) return principal.kind;
  return principal.scopes.includes(SCOPES.locationsInternal) ? 'SERVICE' : 'RSP';
}

/**
 * Admits a request to a @RateLimited route while its client's requests stay within the quota of its kind, counted
 * across replicas (SharedRateCounts); past it, 429 RATE_LIMIT_EXCEEDED with Retry-After. Every counted reply carries
 * the IETF RateLimit-Policy and RateLimit fields. A token issued before tokens named the client's kind counts as an
 * RSP's, or as the services' own client's when it holds the internal scope (only that client can).
 */
@Injectable()
class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly counts: SharedRateCounts,
    private readonly metrics: RateLimitMetrics,
    private readonly clock: Clock,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    if (!this.reflector.getAllAndOverride<boolean>(RATE_LIMITED, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
    if (principal === null) return true;
    const kind = kindOf(principal);
    const policy = this.config.limits[kind];
    if (policy === null) return true;
    const now = this.clock.now().getTime();
    const windowStart = windowStartOf(policy, now);
    // Keyed by the window's length too, so a changed policy starts counts of its own.
    const subject = `${principal.clientId}/${policy.windowSeconds}`;
    const decision = decide(policy, this.counts.counts(subject, windowStart, policy.windowSeconds), now);
    const headers = rateLimitHeaders(kind.toLowerCase(), policy, decision);
    if (!decision.admitted) {
      this.metrics.refused.inc({ kind });
      throw new RateLimitExceededError(
        `at most ${policy.quota} requests per ${policy.windowSeconds} s for a client of kind ${kind}`,
        decision.retryAfterSeconds ?? 1,
        headers,
      );
    }
    this.counts.add(subject, windowStart, policy.windowSeconds);
    void context.switchToHttp().getResponse<FastifyReply>().headers(headers);
    return true;
  }
}

/**
 * Every RATE_LIMIT_SYNC_MS: this replica's counts to the shared table and the totals back; once more at shutdown, so
 * the last interval's requests are not lost. A failing sync is logged when the failures begin and when they end (not
 * every round) and counted in `rate_limit_sync_failures_total`; the counts wait for the next sync.
 */
@Injectable()
class RateLimitSync extends IntervalRound implements BeforeApplicationShutdown {
  private failingSince?: Date;

  constructor(
    private readonly counts: SharedRateCounts,
    private readonly metrics: RateLimitMetrics,
    private readonly clock: Clock,
    @Inject(RATE_LIMIT_CONFIG) config: RateLimitConfig,
  ) {
    super(config.syncMs);
  }

  protected async round(): Promise<number> {
    const now = this.clock.now();
    try {
      const synced = await this.counts.sync(Math.floor(now.getTime() / 1000));
      if (this.failingSince !== undefined) {
        this.logger.log({ msg: 'Rate-limit counts synced again', failingSince: this.failingSince.toISOString() });
        this.failingSince = undefined;
      }
      return synced;
    } catch (error) {
      this.metrics.syncFailures.inc();
      if (this.failingSince === undefined) {
        this.failingSince = now;
        this.logger.warn({
          msg: 'Rate-limit counts could not be synced; each replica limits on its own counts until they are',
          err: error instanceof Error ? error.message : String(error),
        });
      }
      return 0;
    }
  }

  /** The last sync, before the database closes (at shutdown, after this hook). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.execute();
  }
}

/** Once a minute on every replica: deletes the shared counts of windows no policy looks at any more. */
@Injectable()
class PurgeRateLimitCountsSchedule extends IntervalRound {
  private readonly keepSeconds: number;

  constructor(
    private readonly counts: SharedRateCounts,
    private readonly clock: Clock,
    @Inject(RATE_LIMIT_CONFIG) config: RateLimitConfig,
  ) {
    super(PURGE_INTERVAL_MS);
    const windows = Object.values(config.limits).map((policy) => policy?.windowSeconds ?? 0);
    // The window under way and the one before it, of the longest policy.
    this.keepSeconds = 2 * Math.max(1, ...windows);
  }

  protected round(): Promise<number> {
    const before = Math.floor(this.clock.now().getTime() / 1000) - this.keepSeconds;
    return this.inBatches(PURGE_BATCH, (limit) => this.counts.purge(before, limit));
  }
}

/**
 * Per-client rate limits of the routes marked @RateLimited, by client kind (RATE_LIMITS), counted across the
 * service's replicas in its `rate_limit_counts` table (created by AddRateLimitCounts1797984000000 in its migrations).
 */
@Module({})
export class RateLimitModule {
  static forRoot(config: RateLimitConfig): DynamicModule {
    return {
      module: RateLimitModule,
      providers: [
        { provide: RATE_LIMIT_CONFIG, useValue: config },
        { provide: Clock, useClass: SystemClock },
        SharedRateCounts,
        RateLimitMetrics,
        RateLimitSync,
        PurgeRateLimitCountsSchedule,
        { provide: APP_GUARD, useClass: RateLimitGuard },
      ],
      exports: [SharedRateCounts, RateLimitSync, PurgeRateLimitCountsSchedule],
    };
  }
}

export { PurgeRateLimitCountsSchedule, RateLimitSync };
