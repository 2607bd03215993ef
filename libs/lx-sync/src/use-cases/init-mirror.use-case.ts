import { LxSyncError } from '../errors';
import type { MirrorStore } from '../store/mirror-store';
import { type CatchUpFeed, EXPORT_TIMESTAMP, type FeedCatchUp } from './catch-up-feed.use-case';
import { LOADING_EXPORT_ID, type LoadExport } from './load-export.use-case';

export const INITIALISED_AT = 'initialisedAt';

/**
 * `lx-sync init`: a full export (with versions and groups) into the mirror, then the change feed from its oldest
 * change, so the mirror ends equal to the operator's read model. Stopped half-way, it goes on where it stopped.
 */
export class InitMirror {
  constructor(
    private readonly store: MirrorStore,
    private readonly loadExport: LoadExport,
    private readonly catchUpFeed: CatchUpFeed,
  ) {}

  async execute(): Promise<{ rows: number; exportTimestamp: string; feed: FeedCatchUp }> {
    const initialisedAt = await this.store.state(INITIALISED_AT);
    if (initialisedAt !== undefined) {
      throw new LxSyncError(
        'ALREADY_INITIALISED',
        `this mirror was initialised at ${initialisedAt}: run \`lx-sync run\` (or verify/repair); to start over, use an empty database`,
      );
    }
    // An init stopped after its export was loaded (during the feed) goes on with the feed.
    const loaded = await this.store.state(EXPORT_TIMESTAMP);
    const { rows, exportTimestamp } =
      loaded !== undefined && (await this.store.state(LOADING_EXPORT_ID)) === undefined
        ? { rows: 0, exportTimestamp: loaded }
        : await this.loadExport.execute({});
    const feed = await this.catchUpFeed.execute();
    await this.store.transaction((transaction) => transaction.setState(INITIALISED_AT, new Date().toISOString()));
    return { rows, exportTimestamp, feed };
  }
}
