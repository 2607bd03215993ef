import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, IdGenerator, SystemClock, TimeOrderedUuidGenerator } from '@lx/platform';
import { AggregateStateWriter } from './aggregate-state.writer';
import { BulkEventAppender } from './bulk-event.appender';
import { DeciderCommandHandler } from './decider-command.handler';
import { EventAppender } from './event.appender';
import { EVENT_SOURCE, EventEnvelopeFactory } from './event-envelope.factory';
import { EventStore } from './event-store';

/**
 * The event store, its bulk appender for imports, and the ports every write needs: clock and id generator. Needs
 * DatabaseModule, and OutboxModule.forSource(EventLog): the relay that publishes the log.
 */
@Global()
@Module({})
export class EventStoreModule {
  static forRoot(options: { source: string }): DynamicModule {
    return {
      module: EventStoreModule,
      providers: [
        EventStore,
        DeciderCommandHandler,
        EventAppender,
        BulkEventAppender,
        AggregateStateWriter,
        EventEnvelopeFactory,
        { provide: EVENT_SOURCE, useValue: options.source },
        { provide: Clock, useClass: SystemClock },
        { provide: IdGenerator, useClass: TimeOrderedUuidGenerator },
      ],
      exports: [EventStore, DeciderCommandHandler, BulkEventAppender, Clock, IdGenerator],
    };
  }
}
