import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { IntervalRound } from '@lx/platform';
import { Outbox } from './outbox';

/** Settings of the outbox's retention. */
export interface OutboxRetentionOptions {
  /** Seconds a published row is kept before it is deleted. */
  retentionSeconds: number;
}

export const OUTBOX_RETENTION_OPTIONS = Symbol('OUTBOX_RETENTION_OPTIONS');

/** Rows deleted per statement. */
const BATCH = 10_000;

/**
 * Keeps a service's outbox to its unpublished rows and the recently published ones: once a minute on every replica,
 * deletes the rows published more than `retentionSeconds` ago. Without it the outbox grows by every event the service
 * ever published.
 */
@Injectable()
export class OutboxRetentionSchedule extends IntervalRound {
  constructor(
    private readonly outbox: Outbox,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(OUTBOX_RETENTION_OPTIONS) private readonly options: OutboxRetentionOptions,
  ) {
    super(60_000);
  }

  protected async round(): Promise<number> {
    const before = new Date(Date.now() - this.options.retentionSeconds * 1000);
    const total = await this.inBatches(BATCH, (limit) => this.outbox.purgePublished(this.dataSource, before, limit));
    if (total > 0) this.logger.log({ msg: 'Published outbox rows purged', rows: total });
    return total;
  }
}
