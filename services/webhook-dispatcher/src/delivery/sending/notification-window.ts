import type { EndpointScope, LogMessage } from '../infrastructure/notification-log.repository';
import { inScope } from '../infrastructure/notification-log.repository';

/** About what a message holds in memory: its text, its bytes, and the object around them. */
const footprint = (message: LogMessage): number => message.body.length + message.bytes.length + 512;

/** What an endpoint's cursor finds in the window. */
export type WindowRead =
  /** Messages of the endpoint after the cursor, and the position it has scanned to (beyond the last one returned). */
  | { kind: 'read'; messages: LogMessage[]; scannedTo: number }
  /** The cursor is behind the window: read from the database. */
  | { kind: 'behind' };

/**
 * The newest part of the notification log, in memory and shared by every endpoint of the replica: endpoints that
 * keep up read from here, so a message is read from Postgres once per replica, not once per endpoint. Bounded in
 * bytes: the oldest messages go first, and an endpoint whose cursor falls behind reads its own pages from the
 * database instead (memory does not grow with a slow or dead endpoint's backlog).
 */
export class NotificationWindow {
  private messages: LogMessage[] = [];
  private bytes = 0;
  /** Position of the last message read from the log; the window covers (start, head]. */
  private last: number;
  /** Every position above it and up to `last` is in the window. */
  private start: number;

  constructor(
    private readonly maxBytes: number,
    head: number,
  ) {
    this.last = head;
    this.start = head;
  }

  /** The last position of the log this window knows. */
  get head(): number {
    return this.last;
  }

  /** Messages read from the log after `head`, in order. */
  append(messages: readonly LogMessage[]): void {
    for (const message of messages) {
      if (message.position <= this.last) continue;
      this.messages.push(message);
      this.bytes += footprint(message);
      this.last = message.position;
    }
    let drop = 0;
    while (this.bytes > this.maxBytes && drop < this.messages.length - 1) {
      this.bytes -= footprint(this.messages[drop]!);
      this.start = this.messages[drop]!.position;
      drop += 1;
    }
    if (drop > 0) this.messages = this.messages.slice(drop);
  }

  /** Up to `limit` of the endpoint's messages after `position`. */
  read(scope: EndpointScope, position: number, limit: number): WindowRead {
    if (position < this.start) return { kind: 'behind' };
    const found: LogMessage[] = [];
    let index = this.indexAfter(position);
    let scannedTo = Math.max(position, this.last);
    for (; index < this.messages.length; index += 1) {
      const message = this.messages[index]!;
      if (!inScope(scope, message)) continue;
      if (found.length === limit) {
        scannedTo = message.position - 1;
        break;
      }
      found.push(message);
    }
    return { kind: 'read', messages: found, scannedTo };
  }

  /** Index of the first message after `position` (binary search). */
  private indexAfter(position: number): number {
    let low = 0;
    let high = this.messages.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.messages[middle]!.position <= position) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
