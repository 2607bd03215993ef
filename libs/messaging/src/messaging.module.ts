import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Pool } from 'pg';
import { ALL_TOPICS } from '@lx/contracts';
import { type EventBusConfig, PG_POOL, type ReadinessCheck } from '@lx/platform';
import { EventBus } from './event-bus';
import { KafkaEventBus } from './kafka-event-bus';
import { PostgresEventLog } from './postgres-event-log';

/** Readiness of the event bus, named after it: `kafka`, or `eventLog` with EVENT_BUS=postgres. */
@Injectable()
export class EventBusReadinessCheck implements ReadinessCheck {
  readonly name: string;
  constructor(private readonly bus: EventBus) {
    this.name = bus.name;
  }

  check(): Promise<void> {
    return this.bus.ping();
  }
}

@Injectable()
class EventBusLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(EventBus) private readonly bus: EventBus) {}

  /** Every service declares all topics at start, so whichever starts first creates them. */
  async onModuleInit(): Promise<void> {
    await this.bus.ensureTopics(ALL_TOPICS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
  }
}

/**
 * The EventBus of EVENT_BUS: Kafka's, or the PostgresEventLog in the database of `pool` (the service's own pool: its
 * tables live in their own schema, beside the service's).
 */
export function eventBusFor(config: Readonly<EventBusConfig>, pool: Pool | undefined): EventBus {
  if (config.driver === 'kafka') return new KafkaEventBus(config.kafka);
  if (pool === undefined) throw new Error('EVENT_BUS=postgres needs the service database (DatabaseModule)');
  return new PostgresEventLog(pool);
}

/**
 * Provides the EventBus port of the configured driver (EVENT_BUS), topic creation at start, a readiness check, and
 * closes the bus at shutdown.
 */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(config: Readonly<EventBusConfig>): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        {
          provide: EventBus,
          useFactory: (pool?: Pool) => eventBusFor(config, pool),
          inject: [{ token: PG_POOL, optional: true }],
        },
        EventBusReadinessCheck,
        EventBusLifecycle,
      ],
      exports: [EventBus, EventBusReadinessCheck],
    };
  }
}
