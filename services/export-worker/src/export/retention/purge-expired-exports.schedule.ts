import { Inject, Injectable } from '@nestjs/common';
import { exportObjectKey } from '@lx/domain';
import { Clock, IntervalRound } from '@lx/platform';
import { ObjectStore } from '@lx/storage';
import { EXPORT_WORKER_CONFIG, type ExportWorkerConfig } from '../../config/export-worker.config';
import { ExportRequestRepository } from '../infrastructure/export-request.repository';

/** Requests whose objects are deleted per round, of each status; the next round continues. */
const BATCH = 100;

/**
 * Once a minute on every replica: deletes the objects of finished exports whose retention is over: the file of a
 * COMPLETED export (the request stays, and a new link is refused with a message saying the file expired), and
 * whatever earlier attempts of it, or the attempts of a FAILED one, left behind (a replica that died between its
 * upload and its completion); every attempt's key is known (exportObjectKey), so no listing of the bucket is needed.
 * Then the rate-limit windows that have ended. Deleting twice is harmless, so replicas need no coordination.
 */
@Injectable()
export class PurgeExpiredExportsSchedule extends IntervalRound {
  constructor(
    private readonly requests: ExportRequestRepository,
    private readonly store: ObjectStore,
    private readonly clock: Clock,
    @Inject(EXPORT_WORKER_CONFIG) private readonly config: ExportWorkerConfig,
  ) {
    super(60_000);
  }

  /** Resolves with the number of requests whose objects were deleted. */
  protected async round(): Promise<number> {
    const now = this.clock.now();
    const expired = await this.requests.expiredFiles(now, this.config.files.retentionSeconds, BATCH);
    for (const request of expired) {
      const keys = new Set<string>();
      if (request.objectKey !== undefined) keys.add(request.objectKey);
      for (let attempt = 1; attempt <= request.attempts; attempt += 1) keys.add(exportObjectKey(request, attempt));
      for (const key of keys) await this.store.remove(key);
      await this.requests.markFileDeleted(request.id, now);
    }
    if (expired.length > 0) this.logger.log({ msg: 'Expired export files deleted', files: expired.length });
    await this.requests.purgeRateWindows(new Date(now.getTime() - 2 * this.config.limits.rateWindowSeconds * 1000));
    return expired.length;
  }
}
