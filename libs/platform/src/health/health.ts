import {
  Controller,
  type DynamicModule,
  Get,
  Inject,
  type InjectionToken,
  Logger,
  Module,
  Optional,
} from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TerminusModule } from '@nestjs/terminus';
import { Counter } from 'prom-client';
import { DEFAULT_READINESS_GRACE_MS } from '../config/config';
import { MetricsRegistry } from '../metrics/metrics';

/** A dependency the service needs to answer requests: Postgres, Kafka, the object store. */
export interface ReadinessCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects (or times out) otherwise. */
  check(): Promise<void>;
}

const READINESS_CHECKS = Symbol('READINESS_CHECKS');
const READINESS_GRACE_MS = Symbol('READINESS_GRACE_MS');
const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Since when a readiness check has failed without answering in between, and why (its last failure). */
interface Failing {
  since: number;
  message: string;
}

@Controller('health')
export class HealthController {
  private readonly logger = new Logger('Health');
  /** The last readiness answer: ready (200) or not (503); none before the first. */
  private lastReady?: boolean;
  private readonly changes?: Counter;
  /** The checks that have answered at least once since the service started. */
  private readonly answeredOnce = new Set<string>();
  private readonly failing = new Map<string, Failing>();

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    @Inject(READINESS_GRACE_MS) private readonly graceMs: number,
    @Optional() metrics?: MetricsRegistry,
  ) {
    if (metrics === undefined) return;
    this.changes = new Counter({
      name: 'health_readiness_changes_total',
      help: 'Times the readiness answer changed, from 200 to 503 or back (a pod flapping in and out of its Service)',
      registers: [metrics.registry],
    });
  }

  /** Liveness: the process answers. Never depends on anything outside it. */
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /**
   * Readiness: 503 while a dependency has never answered (a starting pod gets no requests before it can serve them)
   * or has failed for longer than the grace (READINESS_GRACE_MS), naming the failing ones; 200 otherwise. A failure
   * within the grace is reported under its check (`failing`, `failingSinceMs`) with the answer still 200: every
   * replica shares its dependencies, so a moment's slowness of one would otherwise take them all out of the Service
   * at once, and the requests meanwhile get the ingress's 503 instead of the service's own answer.
   */
  @Get('ready')
  @HealthCheck()
  async ready() {
    // The checks this answer reports down, each with its own failure: concurrent probes share `failing`, whose entry
    // another call's success may have removed by the time this one logs.
    const down: string[] = [];
    try {
      const report = await this.health.check(this.checks.map((readiness) => () => this.run(readiness, down)));
      this.answered(true, down);
      return report;
    } catch (error) {
      this.answered(false, down);
      throw error;
    }
  }

  private async run(readiness: ReadinessCheck, down: string[]) {
    const session = this.indicator.check(readiness.name);
    try {
      await withTimeout(readiness.check(), CHECK_TIMEOUT_MS);
      this.answeredOnce.add(readiness.name);
      this.failing.delete(readiness.name);
      return session.up();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const now = Date.now();
      const since = this.failing.get(readiness.name)?.since ?? now;
      this.failing.set(readiness.name, { since, message });
      if (this.answeredOnce.has(readiness.name) && now - since < this.graceMs) {
        return session.up({ failing: message, failingSinceMs: now - since });
      }
      down.push(
        this.answeredOnce.has(readiness.name)
          ? `${readiness.name}: ${message} (failing for ${now - since} ms)`
          : `${readiness.name}: ${message} (never answered)`,
      );
      return session.down({ message });
    }
  }

  /** Counts a readiness answer that differs from the one before it, and logs the change with the checks down. */
  private answered(ready: boolean, down: readonly string[]): void {
    if (this.lastReady !== undefined && this.lastReady !== ready) {
      this.changes?.inc();
      if (ready) this.logger.log('Ready again');
      else this.logger.warn({ down: down.join('; ') }, 'Not ready: a dependency failed past READINESS_GRACE_MS');
    }
    this.lastReady = ready;
  }
}

/**
 * Serves /health/live and /health/ready; readiness runs the given checks: tokens of ReadinessCheck providers of other
 * global modules (a class such as DatabaseReadinessCheck, or a token such as projectionReadinessToken()), and
 * tolerates a failure of one that answered before for `graceMs` (HttpConfig.readinessGraceMs).
 */
@Module({})
export class HealthModule {
  static forRoot(checks: InjectionToken<ReadinessCheck>[], graceMs = DEFAULT_READINESS_GRACE_MS): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController],
      providers: [
        { provide: READINESS_CHECKS, useFactory: (...all: ReadinessCheck[]) => all, inject: checks },
        { provide: READINESS_GRACE_MS, useValue: graceMs },
      ],
    };
  }
}
