import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Counter } from 'prom-client';
import { assertIfMatch, Clock, MetricsRegistry } from '@lx/platform';
import { type Decider, NO_GROUPS_NAMED, type WriteOutcome, type WriteRead, type WriteRequest } from './decider';
import { EventStore } from './event-store';
import { FencedWriteError, isRetryableWrite } from './event-store.errors';
import type { AppendContext, DecidedEvent, StreamAppend } from './event-store.types';

/** A decision ready to append: the stream's new events and state row, and what the write reports. */
interface Decision<State> {
  append: StreamAppend;
  context: AppendContext;
  outcome: WriteOutcome<State>;
}

/**
 * Load, decide, append for every aggregate (locations, location groups, address groups), as Emmett's
 * DeciderCommandHandler: the rules are the decider's, the steps are here once.
 *
 * Fast path, two round trips: read the stream and the groups without locks, decide, then append in one statement
 * that checks the stream is still at the version decided on and the referenced groups still exist
 * (`EventStore.appendIfCurrent`). A write that changes nothing (a replayed PUT) ends after the read.
 *
 * Contended path: when that append finds the stream moved (or loses a race, or meets the watermark fence), the write
 * is decided again under locks in a transaction (the stream's row FOR UPDATE, its groups FOR SHARE), as every write
 * did before; concurrent writers of one stream then queue instead of retrying each other out. A group delete, whose
 * reference count holds only under the group's lock, always takes it.
 *
 * Every rejection is the decider's typed error, thrown the same way on both paths (If-Match before the rules).
 */
@Injectable()
export class DeciderCommandHandler {
  private readonly contended: Counter<'stream_type'>;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    metrics: MetricsRegistry,
  ) {
    this.contended = new Counter({
      name: 'command_writes_contended_total',
      help: 'Single writes decided again under locks because their one-statement append did not go through (the stream moved, a referenced group went, a lost race, the watermark fence)',
      labelNames: ['stream_type'],
      registers: [metrics.registry],
    });
  }

  async execute<State, Command, Event extends DecidedEvent>(
    decider: Decider<State, Command, Event>,
    request: WriteRequest<Command>,
  ): Promise<WriteOutcome<State>> {
    const namedGroups = request.namedGroups ?? NO_GROUPS_NAMED;
    if (request.countReferences !== true) {
      const decision = this.decide(decider, request, await this.store.readForWrite(request.streamId, namedGroups));
      if (decision.outcome.events.length === 0) return decision.outcome;
      const required = decider.references(decision.outcome.state);
      const appended = await this.store
        .appendIfCurrent(decision.append, decision.context, required)
        .catch(async (error: unknown) => {
          if (!isRetryableWrite(error)) throw error;
          // Decided again at once, a fenced write would meet the fence again in the same millisecond.
          if (error instanceof FencedWriteError) await sleep(error.retryDelayMs);
          return false;
        });
      if (appended) return decision.outcome;
      this.contended.inc({ stream_type: decider.streamType });
    }
    return this.store.transaction(async (transaction) => {
      const read = await transaction.readForWrite(request.streamId, namedGroups, {
        countReferences: request.countReferences === true ? groupKindOf(decider.streamType) : undefined,
      });
      const decision = this.decide(decider, request, read);
      await transaction.append([decision.append], decision.context);
      return decision.outcome;
    });
  }

  /** Checks If-Match, builds the command and decides it on what was read; throws the decider's rejection. */
  private decide<State, Command, Event extends DecidedEvent>(
    decider: Decider<State, Command, Event>,
    request: WriteRequest<Command>,
    read: WriteRead,
  ): Decision<State> {
    const { stream } = read;
    const before = decider.stateOf(stream, request.streamId);
    assertIfMatch(request.ifMatch, decider.currentVersion(stream, before));
    const now = this.clock.now().toISOString();
    const command = request.command({
      now,
      existingGroups: read.existingGroups,
      referencingLocations: read.referencingLocations,
    });
    const decided = decider.decide(command, before);
    if (!decided.ok) throw decided.error;
    const events = decided.value;
    const state = events.reduce((current, event) => decider.evolve(current, event), before);
    const fromVersion = stream?.version ?? 0;
    return {
      append: {
        streamId: request.streamId,
        streamType: decider.streamType,
        fromVersion,
        events,
        index: decider.index(state),
      },
      context: { timestamp: now, correlationId: request.correlationId },
      outcome: { state, version: fromVersion + events.length, existed: stream !== undefined, events },
    };
  }
}

function groupKindOf(streamType: string): 'locationGroup' | 'addressGroup' {
  if (streamType === 'locationGroup' || streamType === 'addressGroup') return streamType;
  throw new Error(`only groups are counted as referenced, not a ${streamType}`);
}
