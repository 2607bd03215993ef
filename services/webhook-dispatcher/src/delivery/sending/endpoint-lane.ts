import type { WebhookEventType } from '@lx/contracts';
import type { ClaimedDelivery } from '../infrastructure/delivery.repository';
import type { EndpointScope, LogMessage } from '../infrastructure/notification-log.repository';

/** A subscription as the dispatcher serves it. */
export interface EndpointSubscription {
  clientId: string;
  endpointNo: number;
  deliverable: boolean;
  webhookUrl: string | null;
  eventTypes: WebhookEventType[] | null;
  startPosition: number;
  startAtMs: number;
  consecutiveFailures: number;
  secret: ClaimedDelivery['secret'] | null;
  previousSecret?: ClaimedDelivery['previousSecret'];
}

/**
 * One endpoint served by this replica: its cursor over the notification log and the work in hand. Messages are
 * started in position order; `unfinished` holds those started whose outcome is not yet durable (in flight, or a
 * failure whose delivery row is not yet written), so the cursor's checkpoint never passes one of them. The messages of one
 * location (or group) are never in flight together, so an endpoint receives them in order unless an earlier one waits for a
 * retry. After `backoffAfter` failures in a row the cursor pauses: only the endpoint's retries go on, and the first
 * success (or the end of its pending retries) resumes it.
 */
export class EndpointLane {
  /** Fetched messages not yet started, in order. */
  readonly buffer: LogMessage[] = [];
  /** Last position fetched or scanned past (nothing of this endpoint's in between). */
  readPosition: number;
  readonly unfinished = new Set<number>();
  readonly resourcesInFlight = new Set<string>();
  /** Claimed retries not yet started. */
  readonly retries: ClaimedDelivery[] = [];
  inFlight = 0;
  failuresInARow = 0;
  /** A success should reset the endpoint's failure run in the database (it has one). */
  reportSuccess: boolean;
  fetching = false;
  draining = false;
  /** The checkpoint last written. */
  written: number;

  constructor(
    public subscription: EndpointSubscription,
    readonly epoch: number,
    cursor: number,
    private readonly backoffAfter: number,
  ) {
    this.readPosition = Math.max(cursor, subscription.startPosition);
    this.written = cursor;
    this.reportSuccess = subscription.consecutiveFailures > 0;
  }

  get clientId(): string {
    return this.subscription.clientId;
  }

  /** Which messages it receives: the subscription is one (no copy per read on the hot path). */
  get scope(): EndpointScope {
    return this.subscription;
  }

  /** In backoff: new messages wait at the cursor. */
  get paused(): boolean {
    return this.failuresInARow >= this.backoffAfter;
  }

  /** Takes the subscription as reloaded; a cursor restarted further on (endpoint enabled again) jumps there. */
  update(subscription: EndpointSubscription): void {
    if (
      subscription.startPosition > this.subscription.startPosition &&
      subscription.startPosition > this.readPosition
    ) {
      this.buffer.length = 0;
      this.readPosition = subscription.startPosition;
    }
    // A new webhook URL clears the endpoint's failure run: its backoff too.
    if (subscription.webhookUrl !== this.subscription.webhookUrl) this.failuresInARow = 0;
    this.subscription = subscription;
  }

  /** Whether a message could start now. */
  get nextReady(): boolean {
    const next = this.buffer[0];
    if (this.paused || this.draining || next === undefined) return false;
    return next.resourceId === null || !this.resourcesInFlight.has(next.resourceId);
  }

  /** The next message to start now, if any: not in backoff, and none of its location or group in flight. */
  nextMessage(): LogMessage | undefined {
    if (!this.nextReady) return undefined;
    const next = this.buffer.shift()!;
    this.unfinished.add(next.position);
    if (next.resourceId !== null) this.resourcesInFlight.add(next.resourceId);
    return next;
  }

  /** Messages fetched after the read position. */
  fetched(messages: readonly LogMessage[], scannedTo: number): void {
    for (const message of messages) if (message.position > this.readPosition) this.buffer.push(message);
    this.readPosition = Math.max(this.readPosition, scannedTo);
  }

  /** A started message's attempt is over (its outcome may still have to be written). */
  attempted(message: LogMessage): void {
    if (message.resourceId !== null) this.resourcesInFlight.delete(message.resourceId);
  }

  /**
   * Where the cursor may be checkpointed: before the first unfinished message that is not `durable` now (its row
   * written in the same transaction as the checkpoint), else before the first buffered one, else the read position.
   */
  checkpoint(durable: ReadonlySet<number> = new Set()): number {
    for (const position of this.unfinished) if (!durable.has(position)) return position - 1;
    const next = this.buffer[0];
    return next === undefined ? this.readPosition : next.position - 1;
  }

  /** Nothing started and not finished, no retry in hand. */
  get idle(): boolean {
    return this.inFlight === 0 && this.unfinished.size === 0 && this.retries.length === 0;
  }
}
