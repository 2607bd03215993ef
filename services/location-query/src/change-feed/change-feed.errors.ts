import { DomainError } from '@lx/domain';

/** Why a cursor can no longer be read from. */
export type ExpiredCursorReason = 'retention' | 'epoch';

/**
 * 410 CHANGE_CURSOR_EXPIRED: the changes after the cursor are no longer all in the feed (purged past it), or the feed
 * was rebuilt since the cursor was handed out (another epoch: its positions mean nothing now). Either way the RSP's
 * copy cannot be brought up to date from the feed alone; the message says how to rejoin.
 */
export class ChangeCursorExpiredError extends DomainError {
  readonly code = 'CHANGE_CURSOR_EXPIRED';
  declare readonly details: { parameter: 'after'; reason: ExpiredCursorReason; retentionDays: number };

  constructor(reason: ExpiredCursorReason, retentionDays: number) {
    const why =
      reason === 'retention'
        ? `changes after this cursor were purged (the feed keeps ${retentionDays} days)`
        : 'the change feed was rebuilt since this cursor was issued';
    super(
      `after: ${why}. Catch up by an export (POST /locations/exports): an incremental one with modifiedSince your ` +
        "last export's exportTimestamp, which holds deleted groups as tombstones, or a full one into a fresh copy; " +
        'then read GET /locations/changes without after, applying a location change only when its updatedAt is ' +
        "later than your copy's and a group change only when its timestamp is after the export's exportTimestamp",
      { parameter: 'after', reason, retentionDays },
    );
  }
}
