import type { LxApiClient } from '../api/lx-api.client';
import { LxSyncError } from '../errors';
import type { MirrorStore } from '../store/mirror-store';
import { rowOfChange } from '../sync/mirror-rows';
import { type Progress, SILENT_PROGRESS } from '../sync/progress';
import type { LoadExport } from './load-export.use-case';

export const FEED_CURSOR = 'feedCursor';
export const EXPORT_TIMESTAMP = 'exportTimestamp';
const PAGE = 1000;

export interface FeedCatchUp {
  readonly changes: number;
  readonly applied: number;
  /** Changes passed over because they are malformed (a sender's defect: retrying would stall the mirror for good). */
  readonly skipped: readonly string[];
  /** The cursor had expired: the mirror rejoined by an incremental export first. */
  readonly rejoined: boolean;
}

/**
 * Brings the mirror up to the end of the change feed from its stored cursor: each page's changes and the cursor
 * after them in one transaction, each applied only when newer than the mirror's version. A cursor behind the feed's
 * retention (410) rejoins by an incremental export since the mirror's last export, then reads the feed from its
 * oldest change (docs/read-side.md, "Rejoining after an export").
 */
export class CatchUpFeed {
  constructor(
    private readonly api: LxApiClient,
    private readonly store: MirrorStore,
    private readonly loadExport: LoadExport,
    private readonly progress: Progress = SILENT_PROGRESS,
  ) {}

  async execute(): Promise<FeedCatchUp> {
    let changes = 0;
    let applied = 0;
    let rejoined = false;
    const skipped: string[] = [];
    let cursor = await this.store.state(FEED_CURSOR);
    this.progress.start('change feed');
    for (;;) {
      let page;
      try {
        page = await this.api.changes(cursor, PAGE);
      } catch (error) {
        if (!(error instanceof LxSyncError) || error.code !== 'FEED_EXPIRED' || rejoined) throw error;
        const since = await this.store.state(EXPORT_TIMESTAMP);
        if (since === undefined) throw new LxSyncError('NOT_INITIALISED', 'the mirror has no export: run lx-sync init');
        await this.loadExport.execute({ modifiedSince: since });
        await this.store.transaction((transaction) => transaction.deleteState(FEED_CURSOR));
        this.progress.start('change feed (from its start)');
        cursor = undefined;
        rejoined = true;
        continue;
      }
      const next = page.next;
      applied += await this.store.transaction(async (transaction) => {
        let count = 0;
        for (const { event } of page.changes) {
          let change;
          try {
            change = rowOfChange(event);
          } catch (error) {
            if (!(error instanceof LxSyncError) || error.code !== 'INVALID_PAYLOAD') throw error;
            skipped.push(error.message);
            continue;
          }
          if (change !== undefined && (await transaction.apply(change.resource, change.row))) count++;
        }
        await transaction.setState(FEED_CURSOR, next);
        return count;
      });
      changes += page.changes.length;
      cursor = next;
      this.progress.update(changes);
      if (!page.hasMore) {
        this.progress.stop();
        return { changes, applied, skipped, rejoined };
      }
    }
  }
}
