import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, IdGenerator, SystemClock, TimeOrderedUuidGenerator } from '@lx/platform';
import { EVENT_SOURCE, EventStore } from './event-store';

/** The event store with the ports every write needs: clock and id generator. Needs DatabaseModule and OutboxModule. */
@Global()
@Module({})
export class EventStoreModule {
  static forRoot(options: { source: string }): DynamicModule {
    return {
      module: EventStoreModule,
      providers: [
        EventStore,
        { provide: EVENT_SOURCE, useValue: options.source },
        { provide: Clock, useClass: SystemClock },
        { provide: IdGenerator, useClass: TimeOrderedUuidGenerator },
      ],
      exports: [EventStore, Clock, IdGenerator],
    };
  }
}
