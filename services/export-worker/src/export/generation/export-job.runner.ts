import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { hostname } from 'node:os';
import { Clock, IdGenerator, WakeUp } from '@lx/platform';
import { EXPORT_WORKER_CONFIG, type ExportWorkerConfig } from '../../config/export-worker.config';
import { ExportMetrics } from '../infrastructure/export-metrics';
import { ExportRequestRepository } from '../infrastructure/export-request.repository';
import { AttemptAborted, GenerateExportHandler } from './generate-export.handler';

/**
 * Runs `concurrency` job slots. Each claims the oldest due PENDING request (any replica may), generates it, and
 * claims the next; idle, it waits for a wake-up or the poll interval. On shutdown it stops claiming and aborts the
 * attempts in flight, which hand their requests back uncounted for another replica. Also refreshes the queue
 * metrics.
 */
@Injectable()
export class ExportJobRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExportJobRunner.name);
  private readonly owner: string;
  private readonly shutdown = new AbortController();
  private readonly wakers = new Set<() => void>();
  private slots: Promise<void>[] = [];
  private gauges?: NodeJS.Timeout;
  private stopListening?: () => void;

  constructor(
    private readonly requests: ExportRequestRepository,
    private readonly generate: GenerateExportHandler,
    private readonly wakeUp: WakeUp,
    private readonly metrics: ExportMetrics,
    private readonly clock: Clock,
    ids: IdGenerator,
    @Inject(EXPORT_WORKER_CONFIG) private readonly config: ExportWorkerConfig,
  ) {
    this.owner = `${hostname()}:${process.pid}:${ids.next()}`;
  }

  onApplicationBootstrap(): void {
    this.stopListening = this.wakeUp.listen(this.wakeAll);
    this.slots = Array.from({ length: this.config.jobs.concurrency }, () => this.slot());
    void this.refreshGauges();
    this.gauges = setInterval(() => void this.refreshGauges(), 5_000);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopListening?.();
    clearInterval(this.gauges);
    this.shutdown.abort(new AttemptAborted('shutdown'));
    this.wakeAll();
    await Promise.all(this.slots);
  }

  private readonly wakeAll = () => {
    for (const wake of this.wakers) wake();
  };

  private async slot(): Promise<void> {
    while (!this.shutdown.signal.aborted) {
      try {
        const claim = await this.requests.claim(this.owner, this.config.jobs.leaseSeconds);
        if (claim === undefined) {
          await this.idle(this.config.jobs.pollIntervalMs);
          continue;
        }
        await this.generate.execute(claim, this.shutdown.signal);
      } catch (error) {
        // Postgres went away: try again after a pause.
        this.logger.warn({ msg: 'Export job slot interrupted', err: error instanceof Error ? error.message : error });
        await this.idle(this.config.jobs.pollIntervalMs);
      }
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
      if (this.shutdown.signal.aborted) done();
    });
  }

  private async refreshGauges(): Promise<void> {
    try {
      const summary = await this.requests.pendingSummary(this.clock.now());
      this.metrics.pending.set(summary.pending);
      this.metrics.oldestPendingAge.set(summary.oldestAgeSeconds);
    } catch {
      // The next round tries again; readiness reports the database.
    }
  }
}
