import {
  type DynamicModule,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type Type,
} from '@nestjs/common';
import type { Pool } from 'pg';
import { MetricsRegistry, PG_POOL, type ReadinessCheck } from '@lx/platform';
import { EventBus } from '../event-bus';
import type { Projection } from './projection';
import { ProjectionConsumer } from './projection-consumer';
import { ProjectionLag } from './projection-lag';

export interface ProjectionModuleOptions {
  /**
   * Names this consumer among the service's projections: its injection tokens and its readiness check. Default
   * `projection`; a service that registers several gives each its own.
   */
  name?: string;
  groupId: string;
  batchSize: number;
  /** Partitions applied at the same time (see ProjectionConsumerOptions.concurrency). */
  concurrency: number;
  /** The projection; its dependencies must come from global modules (it usually needs none). */
  projection: Type<Projection>;
  /** Where a partition with no stored offset starts (see ProjectionConsumerOptions.startAt). */
  startAt?: 'beginning' | 'end';
}

const DEFAULT_NAME = 'projection';

/** Injection token of the ProjectionConsumer registered under this name. */
export const projectionConsumerToken = (name = DEFAULT_NAME): string => `ProjectionConsumer:${name}`;

/** Injection token of the readiness check (a ReadinessCheck named after the projection) registered under this name. */
export const projectionReadinessToken = (name = DEFAULT_NAME): string => `ProjectionReadinessCheck:${name}`;

/** Injection token of the consumer lag round (ProjectionLag) registered under this name. */
export const projectionLagToken = (name = DEFAULT_NAME): string => `ProjectionLag:${name}`;

/**
 * Ready unless the projection is failing (its last batch could not be applied, or its consumer crashed) or stopped. A
 * consumer that has not joined its group yet, or is catching up, is ready: its reads are consistent, only older.
 */
export class ProjectionReadinessCheck implements ReadinessCheck {
  constructor(
    readonly name: string,
    private readonly consumer: ProjectionConsumer,
  ) {}

  check(): Promise<void> {
    const health = this.consumer.health();
    if (health.state === 'failing') return Promise.reject(new Error(health.failure ?? 'the projection is failing'));
    if (health.state === 'stopped') return Promise.reject(new Error('the projection consumer is stopped'));
    return Promise.resolve();
  }
}

/** Starts the consumer once the application is up and stops it first on shutdown. */
class ProjectionLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(private readonly consumer: ProjectionConsumer) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start();
  }

  /** Before any shutdown hook, so the database and the bus are still there for the batch in hand. */
  async onModuleDestroy(): Promise<void> {
    await this.consumer.stop();
  }
}

/**
 * Runs one projection from the event log into the service's database (the pool of DatabaseModule), and reports its
 * consumer lag per partition (ProjectionLag). A service may register several, each under its own `name`; each
 * registration exports its consumer and readiness check under the tokens of that name. Needs DatabaseModule,
 * MessagingModule, MetricsModule.
 */
@Module({})
export class ProjectionModule {
  static register(options: ProjectionModuleOptions): DynamicModule {
    const name = options.name ?? DEFAULT_NAME;
    const consumerToken = projectionConsumerToken(name);
    const readinessToken = projectionReadinessToken(name);
    return {
      module: ProjectionModule,
      global: true,
      providers: [
        options.projection,
        {
          provide: consumerToken,
          useFactory: (pool: Pool, bus: EventBus, projection: Projection, metrics: MetricsRegistry) =>
            new ProjectionConsumer(pool, bus, projection, {
              groupId: options.groupId,
              batchSize: options.batchSize,
              concurrency: options.concurrency,
              registry: metrics.registry,
              ...(options.startAt === undefined ? {} : { startAt: options.startAt }),
            }),
          inject: [PG_POOL, EventBus, options.projection, MetricsRegistry],
        },
        {
          provide: readinessToken,
          useFactory: (consumer: ProjectionConsumer) => new ProjectionReadinessCheck(name, consumer),
          inject: [consumerToken],
        },
        {
          provide: projectionLagToken(name),
          useFactory: (projection: Projection, consumer: ProjectionConsumer, bus: EventBus, metrics: MetricsRegistry) =>
            new ProjectionLag(projection, consumer, bus, metrics.registry),
          inject: [options.projection, consumerToken, EventBus, MetricsRegistry],
        },
        {
          provide: `ProjectionLifecycle:${name}`,
          useFactory: (consumer: ProjectionConsumer) => new ProjectionLifecycle(consumer),
          inject: [consumerToken],
        },
      ],
      exports: [consumerToken, readinessToken],
    };
  }
}
