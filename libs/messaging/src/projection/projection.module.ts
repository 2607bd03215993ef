import {
  type DynamicModule,
  Global,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type Type,
} from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { MetricsRegistry, type ReadinessCheck } from '@lx/platform';
import { EventBus } from '../event-bus';
import { pgPoolOf } from './pg-pool';
import type { Projection } from './projection';
import { ProjectionConsumer } from './projection-consumer';

/** The node-postgres pool of the service's data source (see pgPoolOf). */
export const PG_POOL = Symbol('PG_POOL');

export interface ProjectionModuleOptions {
  groupId: string;
  batchSize: number;
  /** Partitions applied at the same time (see ProjectionConsumerOptions.concurrency). */
  concurrency: number;
  /** The projection; its dependencies must come from global modules (it usually needs none). */
  projection: Type<Projection>;
}

const PROJECTION = Symbol('PROJECTION');

/**
 * Ready unless the projection is failing (its last batch could not be applied, or its consumer crashed) or stopped. A
 * consumer that has not joined its group yet, or is catching up, is ready: its reads are consistent, only older.
 */
@Injectable()
export class ProjectionReadinessCheck implements ReadinessCheck {
  readonly name = 'projection';
  constructor(private readonly consumer: ProjectionConsumer) {}

  check(): Promise<void> {
    const health = this.consumer.health();
    if (health.state === 'failing') return Promise.reject(new Error(health.failure ?? 'the projection is failing'));
    if (health.state === 'stopped') return Promise.reject(new Error('the projection consumer is stopped'));
    return Promise.resolve();
  }
}

@Injectable()
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

/** Runs one projection from the event log into the service's database. Needs DatabaseModule, MessagingModule, MetricsModule. */
@Global()
@Module({})
export class ProjectionModule {
  static forRoot(options: ProjectionModuleOptions): DynamicModule {
    return {
      module: ProjectionModule,
      providers: [
        {
          provide: PG_POOL,
          useFactory: (dataSource: DataSource) => pgPoolOf(dataSource),
          inject: [getDataSourceToken()],
        },
        { provide: PROJECTION, useClass: options.projection },
        {
          provide: ProjectionConsumer,
          useFactory: (pool: Pool, bus: EventBus, projection: Projection, metrics: MetricsRegistry) =>
            new ProjectionConsumer(pool, bus, projection, {
              groupId: options.groupId,
              batchSize: options.batchSize,
              concurrency: options.concurrency,
              registry: metrics.registry,
            }),
          inject: [PG_POOL, EventBus, PROJECTION, MetricsRegistry],
        },
        ProjectionReadinessCheck,
        ProjectionLifecycle,
      ],
      exports: [PG_POOL, ProjectionConsumer, ProjectionReadinessCheck],
    };
  }
}
