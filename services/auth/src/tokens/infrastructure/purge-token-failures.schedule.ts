import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth.config';
import { TokenFailuresRepository } from './token-failures.repository';

const PURGE_INTERVAL_MS = 60_000;

/** Keeps token_failures small: every minute, drops counters whose window has ended (any replica may do it). */
@Injectable()
export class PurgeTokenFailuresSchedule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PurgeTokenFailuresSchedule.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly failures: TokenFailuresRepository,
    private readonly clock: Clock,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.purge(), PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private async purge(): Promise<void> {
    try {
      await this.failures.purgeEnded(this.clock.now(), this.config.tokens.failureWindowSeconds);
    } catch (error) {
      this.logger.warn({
        msg: 'Purging token failures failed',
        err: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
