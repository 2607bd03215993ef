import {
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
import { RateLimitExceededError } from '@lx/domain';
import type { RateLimitConfig } from '../config/config';
import { MetricsRegistry } from '../metrics/metrics';
import { IntervalRound } from '../schedule/interval-round';
import { decide, rateLimitHeaders, windowStartOf } from './rate-limit';
import { SharedRateCounts } from './shared-rate-counts';

export * from './rate-limit';
export * from './shared-rate-counts';

const RATE_LIMITED = 'lx:rate-limited';
const RATE_LIMIT_CONFIG = Symbol('RATE_LIMIT_CONFIG');
/** How often the table's rows of past windows are deleted. */
const PURGE_INTERVAL_MS = 60_000;

/** Counts the requests of a route (on a handler or a whole controller) against the caller's quota (RATE_LIMITS). */
export const RateLimited = () => SetMetadata(RATE_LIMITED, true);

@Injectable()
class RateLimitMetrics {
  readonly refused: Counter<'kind'>;
  constructor(metrics: MetricsRegistry) {
    this.refused = new Counter({
      name: 'http_rate_limited_total',
      help: 'Requests refused with 429 because their client had spent its quota (RATE_LIMITS), by client kind',
      labelNames: ['kind'] as const,
      registers: [metrics.registry],
    });
  }
}

/**
 * Admits a request to a @RateLimited route while its client's requests stay within the quota of its kind, counted
 * across replicas (SharedRateCounts); past it, 429 RATE_LIMIT_EXCEEDED with Retry-After. Every counted reply carries
 * the IETF RateLimit-Policy and RateLimit fields. A token without a kind (issued before tokens named it) counts as an
 * RSP's.
 */
@Injectable()
class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly counts: SharedRateCounts,
    private readonly metrics: RateLimitMetrics,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    if (!this.reflector.getAllAndOverride<boolean>(RATE_LIMITED, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
    if (principal === null) return true;
    const kind = principal.kind ?? 'RSP';
    const policy = this.config.limits[kind];
    if (policy === null) return true;
    const now = Date.now();
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
    this.counts.add(subject, windowStart);
    void context.switchToHttp().getResponse<FastifyReply>().headers(headers);
    return true;
  }
}

/**
 * Every RATE_LIMIT_SYNC_MS: this replica's counts to the shared table and the totals back; every minute, the rows of
 * windows no policy looks at any more deleted.
 */
@Injectable()
class RateLimitSync extends IntervalRound {
  private readonly keepSeconds: number;
  private purgedAt = 0;

  constructor(
    private readonly counts: SharedRateCounts,
    @Inject(RATE_LIMIT_CONFIG) config: RateLimitConfig,
  ) {
    super(config.syncMs);
    const windows = Object.values(config.limits).map((policy) => policy?.windowSeconds ?? 0);
    // The window under way and the one before it.
    this.keepSeconds = 2 * Math.max(1, ...windows);
  }

  protected async round(): Promise<number> {
    const now = Date.now();
    const keepSince = Math.floor(now / 1000) - this.keepSeconds;
    const synced = await this.counts.sync(keepSince);
    if (now - this.purgedAt >= PURGE_INTERVAL_MS) {
      await this.counts.purge(keepSince);
      this.purgedAt = now;
    }
    return synced;
  }
}

/**
 * Per-client rate limits of the routes marked @RateLimited, by client kind (RATE_LIMITS), counted across the
 * service's replicas in its `rate_limit_counts` table (CREATE_RATE_LIMIT_COUNTS, created by one of its migrations).
 */
@Module({})
export class RateLimitModule {
  static forRoot(config: RateLimitConfig): DynamicModule {
    return {
      module: RateLimitModule,
      providers: [
        { provide: RATE_LIMIT_CONFIG, useValue: config },
        SharedRateCounts,
        RateLimitMetrics,
        RateLimitSync,
        { provide: APP_GUARD, useClass: RateLimitGuard },
      ],
      exports: [SharedRateCounts, RateLimitSync],
    };
  }
}

export { RateLimitSync };
