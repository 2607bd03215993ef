import { Injectable } from '@nestjs/common';
import { IDEMPOTENCY_WINDOW_MS } from '@lx/domain';
import { Clock, IntervalRound } from '@lx/platform';
import { IdempotencyKeyRepository } from '../infrastructure/idempotency-key.repository';

/** Keys deleted per statement. */
const BATCH = 10_000;
/** Kept past the window by this much, so that replicas whose clocks differ never purge a key another still honours. */
const MARGIN_MS = 3_600_000;

/**
 * Keeps idempotency_keys to the keys that still answer: once a minute on every replica, deletes the keys claimed
 * longer ago than the Idempotency-Key window (24 hours) and a margin of an hour. A request may claim such a key anew
 * anyway, so deleting it changes no reply; without it the table grows by every creation ever made with a key.
 */
@Injectable()
export class PurgeIdempotencyKeysSchedule extends IntervalRound {
  constructor(
    private readonly keys: IdempotencyKeyRepository,
    private readonly clock: Clock,
  ) {
    super(60_000);
  }

  protected async round(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - IDEMPOTENCY_WINDOW_MS - MARGIN_MS);
    const total = await this.inBatches(BATCH, (limit) => this.keys.purgeClaimedBefore(before, limit));
    if (total > 0) this.logger.log({ msg: 'Expired idempotency keys purged', keys: total });
    return total;
  }
}
