import { Inject, Injectable } from '@nestjs/common';
import { Clock, IntervalRound } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth.config';
import { knownSourcesSince } from '../domain/failure-window';
import { TokenThrottleRepository } from './token-throttle.repository';

/** Rows deleted per statement. */
const BATCH = 10_000;

/**
 * Keeps the token endpoint's tables small: once a minute on every replica, drops counters whose window has ended and
 * forgets sources a client has not authenticated from for TOKEN_KNOWN_SOURCE_DAYS.
 */
@Injectable()
export class PurgeTokenThrottleSchedule extends IntervalRound {
  constructor(
    private readonly throttle: TokenThrottleRepository,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {
    super(60_000);
  }

  protected async round(): Promise<number> {
    const now = this.clock.now();
    const { failureWindowSeconds, knownSourceDays } = this.config.tokens;
    const forgetBefore = knownSourcesSince(now, knownSourceDays);
    const counters = await this.inBatches(BATCH, (limit) => this.throttle.purgeEnded(now, failureWindowSeconds, limit));
    const sources = await this.inBatches(BATCH, (limit) => this.throttle.purgeKnownSources(forgetBefore, limit));
    return counters + sources;
  }
}
