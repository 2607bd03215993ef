import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Outbox } from './outbox';
import { OUTBOX_RELAY_OPTIONS, OutboxRelay, type OutboxRelayOptions } from './outbox-relay';

/**
 * The transactional outbox of a service: `Outbox.append` inside the write transaction, and a relay
 * that publishes committed rows to the event bus. Needs DatabaseModule and MessagingModule.
 */
@Global()
@Module({})
export class OutboxModule {
  static forRoot(options: Partial<OutboxRelayOptions> = {}): DynamicModule {
    return {
      module: OutboxModule,
      providers: [
        Outbox,
        OutboxRelay,
        { provide: OUTBOX_RELAY_OPTIONS, useValue: { batchSize: 500, pollIntervalMs: 50, ...options } },
      ],
      exports: [Outbox],
    };
  }
}
