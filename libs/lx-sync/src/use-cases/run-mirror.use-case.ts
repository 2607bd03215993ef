import { setTimeout as sleep } from 'node:timers/promises';
import type { LxSyncConfig } from '../config/lx-sync.config';
import { LxSyncError } from '../errors';
import { SyncMetrics } from '../run/sync-metrics';
import { SyncServer } from '../run/sync-server';
import type { MirrorStore } from '../store/mirror-store';
import type { CatchUpFeed } from './catch-up-feed.use-case';
import type { CheckMirror, CheckResult } from './check-mirror.use-case';
import { INITIALISED_AT } from './init-mirror.use-case';
import { ReceiveWebhook } from './receive-webhook.use-case';

/** Delivery ids are kept this long: a redelivery of a delivery comes within the retry schedule's days. */
const DELIVERY_MEMORY_MS = 14 * 24 * 3600 * 1000;

export interface RunningMirror {
  readonly port: number;
  readonly metrics: SyncMetrics;
  /** Stops the loops and the receiver (requests in flight end first). */
  stop(): Promise<void>;
}

type Task = 'feed' | 'check';

/**
 * `lx-sync run`: the webhook receiver (SyncServer, ReceiveWebhook), the change feed at once (catching up after
 * downtime) and every `feedIntervalSeconds`, and the check every `checkIntervalSeconds`, repairing any drift. Each
 * loop waits for its run to end before the next interval, and a failed run is logged, counted and tried again at the
 * next one. Health: the database answers and the feed was read within three intervals.
 */
export class RunMirror {
  constructor(
    private readonly config: LxSyncConfig,
    private readonly store: MirrorStore,
    private readonly catchUp: CatchUpFeed,
    private readonly check: CheckMirror,
  ) {}

  async execute(log: (line: string) => void): Promise<RunningMirror> {
    if (this.config.webhookSecret === undefined) {
      throw new LxSyncError(
        'CONFIG_INVALID',
        'webhookSecret (LX_SYNC_WEBHOOK_SECRET) is required by `lx-sync run`: the whsec_… secret of the client',
      );
    }
    const metrics = new SyncMetrics();
    const tasks: Record<Task, { lastSuccess?: Date; lastError?: string }> = { feed: {}, check: {} };
    const health = async () => {
      const lastFeed = tasks.feed.lastSuccess?.getTime();
      const stale = lastFeed === undefined || Date.now() - lastFeed > 3 * this.config.feedIntervalSeconds * 1000;
      let database = 'ok';
      try {
        await this.store.state(INITIALISED_AT);
      } catch (error) {
        database = (error as Error).message;
      }
      return { ok: database === 'ok' && !stale, details: { database, ...tasks } };
    };
    const server = new SyncServer(new ReceiveWebhook(this.store, this.config.webhookSecret), metrics, { health }, log);
    const port = await server.listen(this.config.listenHost, this.config.listenPort);
    const controller = new AbortController();
    const pause = (ms: number) => sleep(ms, undefined, { signal: controller.signal }).catch(() => undefined);
    const loop = async (task: Task, intervalMs: number, firstDelayMs: number, work: () => Promise<void>) => {
      await pause(firstDelayMs);
      while (!controller.signal.aborted) {
        try {
          await work();
          tasks[task] = { lastSuccess: new Date() };
        } catch (error) {
          metrics.failures.inc({ task });
          tasks[task] = { ...tasks[task], lastError: (error as Error).message };
          log(`${task} failed (tried again in ${intervalMs / 1000} s): ${(error as Error).message}`);
        }
        await pause(intervalMs);
      }
    };
    const feedLoop = loop('feed', this.config.feedIntervalSeconds * 1000, 0, async () => {
      const result = await this.catchUp.execute();
      metrics.feedChanges.inc(result.changes);
      metrics.feedApplied.inc(result.applied);
      metrics.feedSkipped.inc(result.skipped.length);
      metrics.lastFeed.set(Date.now() / 1000);
      await this.store.forgetDeliveries(new Date(Date.now() - DELIVERY_MEMORY_MS));
      for (const skipped of result.skipped) log(`feed: passed over an invalid change: ${skipped}`);
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
    log(`lx-sync run: listening on ${this.config.listenHost}:${port} (webhooks at /locations/events)`);
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
}

function recordCheck(metrics: SyncMetrics, result: CheckResult): void {
  metrics.lastCheck.set(Date.now() / 1000);
  metrics.drifted.set(result.report.drifted.length);
  metrics.repaired.inc((result.repair?.written ?? 0) + (result.repair?.removed ?? 0));
  for (const [resource, counts] of Object.entries(result.report.counts)) metrics.rows.set({ resource }, counts.mirror);
}

/** One line on a check: the spec's count comparison, the digest's verdict, and what was repaired. */
export function describeCheck(result: CheckResult): string {
  const { server, mirror } = result.statistics;
  const drift = result.report.drifted.length;
  return (
    `check: statistics ${server} locations, mirror ${mirror}; digest: ${drift === 0 ? 'equal' : `${drift} drifted`}` +
    ` (${result.report.requests} requests)` +
    (result.repair === undefined ? '' : `; repaired ${result.repair.written} written, ${result.repair.removed} removed`)
  );
}
