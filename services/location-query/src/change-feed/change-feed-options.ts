/** The change feed's settings (CHANGE_FEED_* variables). */
export interface ChangeFeedOptions {
  /** Changes that happened longer ago than this are purged; at least 7. */
  retentionDays: number;
}

export const CHANGE_FEED_OPTIONS = Symbol('CHANGE_FEED_OPTIONS');
