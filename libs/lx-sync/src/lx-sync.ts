import { setTimeout as sleep } from 'node:timers/promises';
import { LxApiClient, MIRROR_RESOURCE_NAMES } from './api/lx-api.client';
import type { LxSyncConfig } from './config/lx-sync.config';
import { LxSyncError } from './errors';
import { SyncMetrics } from './run/sync-metrics';
import { SyncServer } from './run/sync-server';
import type { MirrorStore } from './store/mirror-store';
import { openMirrorStore } from './store/open-mirror-store';
import { type Progress, SILENT_PROGRESS } from './sync/progress';
import { CatchUpFeed, EXPORT_TIMESTAMP, FEED_CURSOR } from './use-cases/catch-up-feed.use-case';
import { CheckMirror, type CheckResult } from './use-cases/check-mirror.use-case';
import { INITIALISED_AT, InitMirror } from './use-cases/init-mirror.use-case';
import { LoadExport } from './use-cases/load-export.use-case';
import { ReceiveWebhook } from './use-cases/receive-webhook.use-case';
import { RepairMirror } from './use-cases/repair-mirror.use-case';
import { VerifyMirror } from './use-cases/verify-mirror.use-case';

/** Delivery ids are kept this long: a redelivery of a delivery comes within the retry schedule's days. */
const DELIVERY_MEMORY_MS = 14 * 24 * 3600 * 1000;

/**
 * lx-sync as a library: one mirror (its database and the API it mirrors) and the commands of the CLI as methods.
 * `open` checks the configuration's database; the API is first called by a command.
 */
export class LxSync {
  readonly api: LxApiClient;
  readonly init: InitMirror;
  readonly catchUp: CatchUpFeed;
  readonly verify: VerifyMirror;
  readonly repair: RepairMirror;
  readonly check: CheckMirror;

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
   * `lx-sync run`: the webhook receiver, the change feed every `feedIntervalSeconds` (and at once, to catch up after
   * downtime), and the check every `checkIntervalSeconds`, repairing any drift. Resolves with a stop function once
   * listening.
   */
  async run(log: (line: string) => void): Promise<{ port: number; stop: () => Promise<void>; metrics: SyncMetrics }> {
    await this.requireInitialised();
    if (this.config.webhookSecret === undefined) {
      throw new LxSyncError(
        'CONFIG_INVALID',
        'webhookSecret (LX_SYNC_WEBHOOK_SECRET) is required by `lx-sync run`: the whsec_… secret of the client',
      );
    }
    const metrics = new SyncMetrics();
    const tasks = new Map<string, { lastSuccess?: Date; lastError?: string }>([
      ['feed', {}],
      ['check', {}],
    ]);
    const health = async () => {
      const feed = tasks.get('feed')!;
      const stale =
        feed.lastSuccess === undefined ||
        Date.now() - feed.lastSuccess.getTime() > 3 * this.config.feedIntervalSeconds * 1000;
      let database = 'ok';
      try {
        await this.store.state(INITIALISED_AT);
      } catch (error) {
        database = (error as Error).message;
      }
      return {
        ok: database === 'ok' && !stale,
        details: { database, ...Object.fromEntries(tasks) },
      };
    };
    const server = new SyncServer(new ReceiveWebhook(this.store, this.config.webhookSecret), metrics, { health }, log);
    const port = await server.listen(this.config.listenHost, this.config.listenPort);
    const controller = new AbortController();
    const loop = async (
      name: 'feed' | 'check',
      intervalMs: number,
      firstDelayMs: number,
      work: () => Promise<void>,
    ) => {
      await sleep(firstDelayMs, undefined, { signal: controller.signal }).catch(() => undefined);
      while (!controller.signal.aborted) {
        const task = tasks.get(name)!;
        try {
          await work();
          task.lastSuccess = new Date();
          task.lastError = undefined;
        } catch (error) {
          metrics.failures.inc({ task: name });
          task.lastError = (error as Error).message;
          log(`${name} failed (retried in ${intervalMs / 1000} s): ${(error as Error).message}`);
        }
        await sleep(intervalMs, undefined, { signal: controller.signal }).catch(() => undefined);
      }
    };
    const feedLoop = loop('feed', this.config.feedIntervalSeconds * 1000, 0, async () => {
      const result = await this.catchUp.execute();
      metrics.feedChanges.inc(result.changes);
      metrics.feedApplied.inc(result.applied);
      metrics.lastFeed.set(Date.now() / 1000);
      await this.store.forgetDeliveries(new Date(Date.now() - DELIVERY_MEMORY_MS));
      if (result.applied > 0 || result.rejoined) {
        log(
          `feed: ${result.applied} of ${result.changes} changes applied${result.rejoined ? ' (rejoined by export)' : ''}`,
        );
      }
    });
    const checkInterval = this.config.checkIntervalSeconds * 1000;
    const checkLoop = loop('check', checkInterval, checkInterval, async () => {
      const result = await this.check.execute({ confirmDelayMs: this.config.confirmDelayMs });
      recordCheck(metrics, result);
      log(describeCheck(result));
    });
    log(`lx-sync run: listening on ${this.config.listenHost}:${port} (webhooks at ${'/locations/events'})`);
    return {
      port,
      metrics,
      stop: async () => {
        controller.abort();
        await server.close();
        await Promise.all([feedLoop, checkLoop]);
      },
    };
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

function recordCheck(metrics: SyncMetrics, result: CheckResult): void {
  metrics.lastCheck.set(Date.now() / 1000);
  metrics.drifted.set(result.report.drifted.length);
  metrics.repaired.inc((result.repair?.written ?? 0) + (result.repair?.removed ?? 0));
  for (const [resource, counts] of Object.entries(result.report.counts)) metrics.rows.set({ resource }, counts.mirror);
}

export function describeCheck(result: CheckResult): string {
  const { server, mirror } = result.statistics;
  const drift = result.report.drifted.length;
  return (
    `check: statistics ${server} locations, mirror ${mirror}; digest: ${drift === 0 ? 'equal' : `${drift} drifted`}` +
    ` (${result.report.requests} requests)` +
    (result.repair === undefined ? '' : `; repaired ${result.repair.written} written, ${result.repair.removed} removed`)
  );
}
