import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@lx/platform';
import { CHANGE_FEED_OPTIONS, type ChangeFeedOptions } from '../change-feed-options';
import { ChangeFeedMetrics } from '../infrastructure/change-feed-metrics';
import { ChangeFeedRepository } from '../infrastructure/change-feed.repository';

/** Changes deleted per transaction; a round goes on while whole batches go. */
const BATCH = 10_000;
/** Most batches per round, so one round never runs for long; the next round continues. */
const MAX_BATCHES = 50;
const INTERVAL_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * Once a minute on every replica: purges the changes older than the retention, then refreshes the feed's gauges.
 * Replicas need no coordination: purges are serialised by the feed's state row and each deletes only what is still
 * there.
 */
@Injectable()
export class PurgeChangesSchedule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PurgeChangesSchedule.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly changes: ChangeFeedRepository,
    private readonly metrics: ChangeFeedMetrics,
    private readonly clock: Clock,
    @Inject(CHANGE_FEED_OPTIONS) private readonly options: ChangeFeedOptions,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.execute().catch(this.failed), INTERVAL_MS);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One round; resolves with the number of changes deleted. */
  async execute(): Promise<number> {
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - this.options.retentionDays * DAY_MS);
    let purged = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
      const deleted = await this.changes.purge(cutoff, BATCH);
      purged += deleted;
      if (deleted < BATCH) break;
    }
    if (purged > 0) {
      this.metrics.purged.inc(purged);
      this.logger.log({ msg: 'Expired changes purged', changes: purged, cutoff: cutoff.toISOString() });
    }
    const stats = await this.changes.stats();
    this.metrics.rows.set(stats.rows);
    this.metrics.oldestAge.set(
      stats.oldestOccurredAt ? Math.max(0, (now.getTime() - stats.oldestOccurredAt.getTime()) / 1000) : 0,
    );
    return purged;
  }

  private readonly failed = (error: unknown) => {
    this.logger.warn({ msg: 'Change feed purge failed; the next round retries', error: String(error) });
  };
}
