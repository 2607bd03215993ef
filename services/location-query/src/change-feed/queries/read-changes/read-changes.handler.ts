import { Inject, Injectable } from '@nestjs/common';
import { type ChangeFeedQuery, ValidationFailedError } from '@lx/domain';
import { CHANGE_FEED_OPTIONS, type ChangeFeedOptions } from '../../change-feed-options';
import { ChangeCursorExpiredError } from '../../change-feed.errors';
import { ChangeFeedMetrics } from '../../infrastructure/change-feed-metrics';
import { ChangeFeedRepository } from '../../infrastructure/change-feed.repository';
import { decodeChangeCursor, encodeChangeCursor, expiryOf } from '../../domain/change-cursor';

/** One page of the feed: the stored delivery bodies in feed order, the cursor to continue from, whether more wait. */
export interface ChangePage {
  bodies: string[];
  next: string;
  hasMore: boolean;
}

/**
 * GET /locations/changes: the changes after a cursor (or from the oldest retained), at most `limit`. The cursor must
 * be of this epoch and not behind the purge position, else 410; `next` is the last change's position, or the start
 * position when there was none, so an RSP always has a position to poll from.
 */
@Injectable()
export class ReadChangesHandler {
  constructor(
    private readonly changes: ChangeFeedRepository,
    private readonly metrics: ChangeFeedMetrics,
    @Inject(CHANGE_FEED_OPTIONS) private readonly options: ChangeFeedOptions,
  ) {}

  async execute(query: ChangeFeedQuery): Promise<ChangePage> {
    const after = query.after === undefined ? undefined : decodeChangeCursor(query.after);
    if (query.after !== undefined && after === undefined) {
      throw new ValidationFailedError(
        [{ field: 'after', rule: 'cursor', message: "after must be a cursor from a reply's next, unchanged" }],
        'INVALID_REQUEST',
      );
    }
    // One more than asked: whether it exists is hasMore.
    const read = await this.changes.read(after, query.limit + 1);
    if (after !== undefined) {
      const reason = expiryOf(after, read);
      if (reason !== undefined) {
        this.metrics.expiredCursors.inc({ reason });
        throw new ChangeCursorExpiredError(reason, this.options.retentionDays);
      }
    }
    const page = read.changes.slice(0, query.limit);
    const last = page.at(-1) ?? after ?? read.purged;
    return {
      bodies: page.map((change) => change.body),
      next: encodeChangeCursor({ epoch: read.epoch, txId: last.txId, seq: last.seq }),
      hasMore: read.changes.length > query.limit,
    };
  }
}
