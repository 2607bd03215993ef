import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@lx/platform';
import { ObjectStore } from '@lx/storage';
import { EXPORT_WORKER_CONFIG, type ExportWorkerConfig } from '../../config/export-worker.config';
import { ExportRequestRepository } from '../infrastructure/export-request.repository';

/** Files deleted per round; the next round continues. */
const BATCH = 100;
const INTERVAL_MS = 60_000;

/**
 * Once a minute on every replica: deletes the files of COMPLETED exports whose retention is over (the request stays,
 * and a new link is refused with a message saying the file expired) and the rate-limit windows that have ended.
 * Deleting twice is harmless, so replicas need no coordination.
 */
@Injectable()
export class PurgeExpiredExportsSchedule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PurgeExpiredExportsSchedule.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly requests: ExportRequestRepository,
    private readonly store: ObjectStore,
    private readonly clock: Clock,
    @Inject(EXPORT_WORKER_CONFIG) private readonly config: ExportWorkerConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.execute().catch(() => undefined), INTERVAL_MS);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One round; resolves with the number of files deleted. */
  async execute(): Promise<number> {
    const now = this.clock.now();
    const expired = await this.requests.expiredFiles(now, BATCH);
    for (const { id, objectKey } of expired) {
      await this.store.remove(objectKey);
      await this.requests.markFileDeleted(id, now);
    }
    if (expired.length > 0) this.logger.log({ msg: 'Expired export files deleted', files: expired.length });
    await this.requests.purgeRateWindows(new Date(now.getTime() - 2 * this.config.limits.rateWindowSeconds * 1000));
    return expired.length;
  }
}
