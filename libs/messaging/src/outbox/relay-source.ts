import { EventEmitter } from 'node:events';
import type { QueryRunner } from 'typeorm';
import type { OutboxMessage } from './outbox';

/** A committed message waiting for the relay, with the time it was written (the relay's lag is measured from it). */
export interface RelayMessage extends OutboxMessage {
  createdAt: Date;
}

/** Messages read by one round of the relay, in the order they must be published, and where the round ends. */
export interface RelayBatch {
  readonly messages: readonly RelayMessage[];
  /** What `confirm` needs to record the batch as published (positions, a checkpoint): the source's own business. */
  readonly end: unknown;
  /**
   * With no message to publish yet: when the oldest committed message that must still wait was written (a log whose
   * order makes later commits wait for earlier transactions), so the relay's lag shows it.
   */
  readonly oldestWaiting?: Date;
}

/**
 * Where OutboxRelay reads what to publish: the transactional outbox of a service (Outbox), or a log that is its own
 * outbox (location-command's event log, tailed by a checkpoint). The relay elects one leader per `leaderLock`, calls
 * `resume` once it leads, then `read` and, after the event bus acknowledged a batch, `confirm`, on the leader's own
 * connection.
 */
export abstract class RelaySource {
  /** Emits 'appended' after a local write committed, so the relay wakes at once instead of at its next poll. */
  readonly signals = new EventEmitter();

  /** Name of the relay's leader lock, unique per source and schema. */
  abstract leaderLock(schema: string): string;

  /** Loads what the source keeps between rounds (a checkpoint), now that this session leads. */
  abstract resume(runner: QueryRunner): Promise<void>;

  /**
   * The next committed messages to publish, at most `limit`, in publication order; none when all are published. They
   * follow the last confirmed batch, or `after`: a batch read but not yet confirmed (the relay reads the next batch
   * while the previous one is on its way to the bus).
   */
  abstract read(runner: QueryRunner, limit: number, after?: RelayBatch): Promise<RelayBatch>;

  /** Records a batch as published, after the event bus acknowledged it. */
  abstract confirm(runner: QueryRunner, batch: RelayBatch): Promise<void>;
}
