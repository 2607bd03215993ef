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

/** Provides the EventBus port backed by Kafka, topic creation at start, and a readiness check. */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(config: Readonly<KafkaConfig>): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        { provide: EventBus, useFactory: () => new KafkaEventBus(config) },
        EventBusReadinessCheck,
        EventBusLifecycle,
      ],
      exports: [EventBus, EventBusReadinessCheck],
    };
  }
}
