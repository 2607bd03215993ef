import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';

/**
 * A round of upkeep that every replica repeats every `intervalMs` while the application runs (purging what retention
 * lets go): started at bootstrap, stopped at shutdown, never two rounds of one replica at once (`execute` while a
 * round runs joins it, so a test or a command can run one too). A failed round is logged as a warning; the next one
 * still comes on time. The work must be safe to repeat and to run on several replicas at once.
 */
export abstract class IntervalRound implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger = new Logger(this.constructor.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  protected constructor(private readonly intervalMs: number) {}

  /** The round's work; resolves with how many things it handled (rows, files). */
  protected abstract round(): Promise<number>;

  onApplicationBootstrap(): void {
    this.timer = setInterval(
      () =>
        void this.execute().catch((error: unknown) =>
          this.logger.warn({ msg: 'Round failed', err: error instanceof Error ? error.message : String(error) }),
        ),
      this.intervalMs,
    );
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One round, or the one already running. */
  execute(): Promise<number> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Runs `step(batch)` until it handles fewer than `batch` (a backlog goes in bounded statements); the total. */
  protected async inBatches(batch: number, step: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const handled = await step(batch);
      total += handled;
      if (handled < batch) return total;
    }
  }
}
