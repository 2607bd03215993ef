import { LxApiClient, MIRROR_RESOURCE_NAMES } from './api/lx-api.client';
import type { LxSyncConfig } from './config/lx-sync.config';
import { LxSyncError } from './errors';
import type { MirrorStore } from './store/mirror-store';
import { openMirrorStore } from './store/open-mirror-store';
import { type Progress, SILENT_PROGRESS } from './sync/progress';
import { CatchUpFeed, EXPORT_TIMESTAMP, FEED_CURSOR } from './use-cases/catch-up-feed.use-case';
import { CheckMirror } from './use-cases/check-mirror.use-case';
import { INITIALISED_AT, InitMirror } from './use-cases/init-mirror.use-case';
import { LoadExport } from './use-cases/load-export.use-case';
import { RepairMirror } from './use-cases/repair-mirror.use-case';
import { RunMirror, type RunningMirror } from './use-cases/run-mirror.use-case';
import { VerifyMirror } from './use-cases/verify-mirror.use-case';

/**
 * lx-sync as a library: one mirror (its database and the API it mirrors) and the use cases of the CLI's commands
 * (`init`, `verify`, `repair`, `check`, each with one `execute`; `run` and `status`). `open` opens the database; the
 * API is first called by a command. verify, repair and check compare an initialised mirror: call
 * `requireInitialised` first, as the CLI does.
 */
export class LxSync {
  readonly api: LxApiClient;
  readonly init: InitMirror;
  readonly catchUp: CatchUpFeed;
  readonly verify: VerifyMirror;
  readonly repair: RepairMirror;
  readonly check: CheckMirror;
  private readonly progress: Progress;

  private constructor(
    readonly config: LxSyncConfig,
    readonly store: MirrorStore,
    progress: Progress,
  ) {
    this.api = new LxApiClient(config);
    const loadExport = new LoadExport(this.api, store, progress);
    this.catchUp = new CatchUpFeed(this.api, store, loadExport, progress);
    this.init = new InitMirror(store, loadExport, this.catchUp);
    this.verify = new VerifyMirror(this.api, store);
    this.repair = new RepairMirror(this.api, store);
    this.check = new CheckMirror(this.api, store, this.verify, this.repair);
    this.progress = progress;
  }

  static async open(config: LxSyncConfig, options: { progress?: Progress } = {}): Promise<LxSync> {
    return new LxSync(config, await openMirrorStore(config.database), options.progress ?? SILENT_PROGRESS);
  }

  /** Fails unless `init` has filled the mirror: verify, repair and check compare an initialised mirror only. */
  async requireInitialised(): Promise<void> {
    if ((await this.store.state(INITIALISED_AT)) === undefined) {
      throw new LxSyncError('NOT_INITIALISED', 'the mirror is empty: run `lx-sync init` first');
    }
  }

  /** Where the mirror stands: when it was initialised, its export time, its feed position and its row counts. */
  async status(): Promise<Record<string, unknown>> {
    const rows: Record<string, number> = {};
    for (const resource of MIRROR_RESOURCE_NAMES) rows[resource] = await this.store.count(resource);
    return {
      database: this.store.kind,
      initialisedAt: (await this.store.state(INITIALISED_AT)) ?? null,
      exportTimestamp: (await this.store.state(EXPORT_TIMESTAMP)) ?? null,
      feedCursor: (await this.store.state(FEED_CURSOR)) ?? null,
      rows,
    };
  }

  /**
   * `lx-sync run` (RunMirror): the webhook receiver, the change feed and the periodic check; resolves once listening,
   * with the function that stops it.
   */
  async run(log: (line: string) => void): Promise<RunningMirror> {
    await this.requireInitialised();
    return new RunMirror(this.config, this.store, this.catchUp, this.check).execute(log);
  }

  /** Closes the database (and any progress display left open by a command that failed). */
  async close(): Promise<void> {
    this.progress.stop();
    await this.store.close();
  }
}
