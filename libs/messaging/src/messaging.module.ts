import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { ALL_TOPICS } from '@lx/contracts';
import type { KafkaConfig, ReadinessCheck } from '@lx/platform';
import { EventBus } from './event-bus';
import { KafkaEventBus } from './kafka-event-bus';

@Injectable()
export class EventBusReadinessCheck implements ReadinessCheck {
  readonly name = 'kafka';
  constructor(private readonly bus: EventBus) {}

  check(): Promise<void> {
    return this.bus.ping();
  }
}

/** Whether the service closes the bus at shutdown: not when it was handed one that other services share. */
const OWNS_EVENT_BUS = Symbol('OWNS_EVENT_BUS');

@Injectable()
class EventBusLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(OWNS_EVENT_BUS) private readonly ownsBus: boolean,
  ) {}

  /** Every service declares all topics at start, so whichever starts first creates them. */
  async onModuleInit(): Promise<void> {
    await this.bus.ensureTopics(ALL_TOPICS);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.ownsBus) await this.bus.close();
  }
}

/**
 * Provides the EventBus port, topic creation at start, and a readiness check. The bus is Kafka's, unless the caller
 * hands in one it owns and shares between services (the embedded profile's PostgresEventLog), which the module then
 * leaves open at shutdown.
 */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(config: Readonly<KafkaConfig>, shared?: EventBus): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        { provide: EventBus, useFactory: () => shared ?? new KafkaEventBus(config) },
        { provide: OWNS_EVENT_BUS, useValue: shared === undefined },
        EventBusReadinessCheck,
        EventBusLifecycle,
      ],
      exports: [EventBus, EventBusReadinessCheck],
    };
  }
}
