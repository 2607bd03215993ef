import { Controller, type DynamicModule, Get, Inject, type InjectionToken, Module, Optional } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TerminusModule } from '@nestjs/terminus';
import { Counter } from 'prom-client';
import { MetricsRegistry } from '../metrics/metrics';

/** A dependency the service needs to answer requests: Postgres, Kafka, the object store. */
export interface ReadinessCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects (or times out) otherwise. */
  check(): Promise<void>;
}

const READINESS_CHECKS = Symbol('READINESS_CHECKS');
const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

@Controller('health')
export class HealthController {
  /** The last readiness answer: ready (200) or not (503); none before the first. */
  private lastReady?: boolean;
  private readonly changes?: Counter;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
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

  /** Readiness: 200 only while every dependency answers, 503 with the failing ones otherwise. */
  @Get('ready')
  @HealthCheck()
  async ready() {
    try {
      const report = await this.health.check(
        this.checks.map((readiness) => async () => {
          const session = this.indicator.check(readiness.name);
          try {
            await withTimeout(readiness.check(), CHECK_TIMEOUT_MS);
            return session.up();
          } catch (error) {
            return session.down({ message: error instanceof Error ? error.message : String(error) });
          }
        }),
      );
      this.answered(true);
      return report;
    } catch (error) {
      this.answered(false);
      throw error;
    }
  }

  /** Counts a readiness answer that differs from the one before it. */
  private answered(ready: boolean): void {
    if (this.lastReady !== undefined && this.lastReady !== ready) this.changes?.inc();
    this.lastReady = ready;
  }
}

/**
 * Serves /health/live and /health/ready; readiness runs the given checks: tokens of ReadinessCheck providers of other
 * global modules (a class such as DatabaseReadinessCheck, or a token such as projectionReadinessToken()).
 */
@Module({})
export class HealthModule {
  static forRoot(checks: InjectionToken<ReadinessCheck>[]): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController],
      providers: [{ provide: READINESS_CHECKS, useFactory: (...all: ReadinessCheck[]) => all, inject: checks }],
    };
  }
}
