import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { MetricsRegistry } from '@lx/platform';

/** What an SRE watches of the change feed: its size, how far back it reaches, the purge, RSPs that fell behind. */
@Injectable()
export class ChangeFeedMetrics {
  readonly rows: Gauge;
  readonly oldestAge: Gauge;
  readonly purged: Counter;
  readonly expiredCursors: Counter<'reason'>;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.rows = new Gauge({
      name: 'change_feed_rows',
      help: 'Changes retained in the feed (PostgreSQL estimate), refreshed by each purge round',
      registers,
    });
    this.oldestAge = new Gauge({
      name: 'change_feed_oldest_change_age_seconds',
      help: 'Age of the oldest retained change (0 when the feed is empty); about the retention once the feed is full',
      registers,
    });
    this.purged = new Counter({
      name: 'change_feed_purged_changes_total',
      help: 'Changes deleted by the retention purge',
      registers,
    });
    this.expiredCursors = new Counter({
      name: 'change_feed_expired_cursors_total',
      help: 'Reads refused with 410 CHANGE_CURSOR_EXPIRED, by reason: retention (purged past) or epoch (feed rebuilt)',
      labelNames: ['reason'],
      registers,
    });
  }
}
