import { type DynamicModule, Global, Module, type Type } from '@nestjs/common';
import { Outbox } from './outbox';
import { OUTBOX_RELAY_OPTIONS, OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
import {
  OUTBOX_RETENTION_OPTIONS,
  type OutboxRetentionOptions,
  OutboxRetentionSchedule,
} from './outbox-retention.schedule';
import { RelaySource } from './relay-source';
import { RELAY_THREAD_OPTIONS, RelayThread, type RelayThreadOptions } from './relay-thread';

const DEFAULT_RELAY_OPTIONS: OutboxRelayOptions = { batchSize: 500, pollIntervalMs: 50 };

/**
 * The transactional outbox of a service: `Outbox.append` inside the write transaction, a relay that publishes
 * committed rows to the event bus, and the retention that deletes published rows after `retentionSeconds`. Needs
 * DatabaseModule and MessagingModule.
 */
@Global()
@Module({})
export class OutboxModule {
  static forRoot(retention: OutboxRetentionOptions, options: Partial<OutboxRelayOptions> = {}): DynamicModule {
    return {
      module: OutboxModule,
      providers: [
        Outbox,
        { provide: RelaySource, useExisting: Outbox },
        ...relayProviders(options),
        { provide: OUTBOX_RETENTION_OPTIONS, useValue: retention },
        OutboxRetentionSchedule,
      ],
      exports: [Outbox, OutboxRetentionSchedule],
    };
  }

  /**
   * The relay alone, over a source of the service's own (a log that is its own outbox, as location-command's event
   * log); the source is exported so the writers can signal their commits to it. With `thread`, the relay runs in a
   * worker thread (RelayThread), which builds it over the same source from `thread.file`.
   */
  static forSource(
    source: Type<RelaySource>,
    options: Partial<OutboxRelayOptions> = {},
    thread?: RelayThreadOptions,
  ): DynamicModule {
    const relay =
      thread === undefined
        ? relayProviders(options)
        : [RelayThread, { provide: RELAY_THREAD_OPTIONS, useValue: thread }];
    return {
      module: OutboxModule,
      providers: [source, { provide: RelaySource, useExisting: source }, ...relay],
      exports: [source],
    };
  }
}

function relayProviders(options: Partial<OutboxRelayOptions>) {
  return [OutboxRelay, { provide: OUTBOX_RELAY_OPTIONS, useValue: { ...DEFAULT_RELAY_OPTIONS, ...options } }];
}
