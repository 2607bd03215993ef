import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { deliveryIdOf } from '@lx/domain';
import { WakeUp } from '@lx/platform';
import { WEBHOOK_DISPATCHER_CONFIG, type WebhookDispatcherConfig } from '../../config/webhook-dispatcher.config';
import {
  type AttemptRecord,
  type Checkpoint,
  type ClaimedDelivery,
  DeliveryRepository,
} from '../infrastructure/delivery.repository';
import { DeliveryMetrics } from '../infrastructure/delivery-metrics';
import { EndpointOwnership } from '../infrastructure/endpoint-ownership';
import { type LogMessage, NotificationLogRepository } from '../infrastructure/notification-log.repository';
import { AttemptDeliveryHandler } from './attempt-delivery.handler';
import { EndpointLane, type EndpointSubscription } from './endpoint-lane';
import { NotificationWindow } from './notification-window';
import { WebhookSender } from './webhook-sender';

/** Attempt records written in one statement at most. */
const RECORD_BATCH = 500;
/** Messages a cursor behind the window reads from the database at a time. */
const PAGE = 256;
/** Messages the window reads from the log at a time, and pages per round. */
const TAIL_PAGE = 2_000;
const TAIL_PAGES_PER_ROUND = 5;
/** How often expired records and messages are purged. */
const PURGE_EVERY_MS = 600_000;

interface QueuedRecord {
  record: AttemptRecord;
  /** A first attempt's lane and position: the cursor passes it once the record is written. */
  lane?: EndpointLane;
  position?: number;
}

/**
 * Sends webhooks. Each endpoint this replica holds (EndpointOwnership) is a lane: a cursor over the notification log
 * whose messages get their first attempt in order, at most WEBHOOK_ENDPOINT_CONCURRENCY at a time, and the claimed
 * retries of its messages that failed before (delivery rows, due on their schedule). A successful first attempt
 * writes nothing; the cursor's checkpoint moves past it with the next batch of records (every
 * WEBHOOK_CHECKPOINT_INTERVAL). A failure becomes a delivery row and the cursor moves on: a 400 is that message's
 * outcome, a retryable failure waits for its retry; after WEBHOOK_ENDPOINT_BACKOFF_AFTER failures in a row the cursor
 * pauses until the endpoint answers again. Endpoints that keep up read from a window of the log in memory; a cursor
 * behind it reads pages of its own. On shutdown (or when an endpoint moves to another replica) no new attempt
 * starts, claimed retries are handed back, attempts in flight finish and their records and the checkpoints are
 * written.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryDispatcher.name);
  private readonly lanes = new Map<string, EndpointLane>();
  /** Lanes that had work but no free slot in the replica. */
  private readonly starved = new Set<EndpointLane>();
  private readonly attempts = new Set<Promise<void>>();
  private records: QueuedRecord[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private window?: NotificationWindow;
  private subscriptions: EndpointSubscription[] = [];
  private stopping = false;
  private loop?: Promise<void>;
  private waker?: () => void;
  private woken = false;
  private gauges?: NodeJS.Timeout;
  private stopListening?: () => void;
  /** Attempts in flight over all endpoints. */
  private total = 0;
  private readonly leaseMs: number;
  private lastSweep = 0;
  private lastRebalance = 0;
  private lastFlush = 0;
  private lastPurge = 0;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly log: NotificationLogRepository,
    private readonly ownership: EndpointOwnership,
    private readonly attempt: AttemptDeliveryHandler,
    private readonly sender: WebhookSender,
    private readonly wakeUp: WakeUp,
    private readonly metrics: DeliveryMetrics,
    @Inject(WEBHOOK_DISPATCHER_CONFIG) private readonly config: WebhookDispatcherConfig,
  ) {
    const { connectTimeoutMs, responseTimeoutMs } = config.delivery;
    // A retry claimed ahead waits at most for one attempt of its endpoint before its own starts: the lease covers two
    // attempts and 5 s to write the record, so only a crashed replica's claims lapse.
    this.leaseMs = 2 * (connectTimeoutMs + responseTimeoutMs) + 5_000;
  }

  onApplicationBootstrap(): void {
    this.stopListening = this.wakeUp.listen(this.wake);
    this.ownership.listen({ appended: this.wake, lost: () => this.loseAll() });
    this.loop = this.run();
    void this.refreshGauges();
    this.gauges = setInterval(() => void this.refreshGauges(), 5_000);
  }

  /** Before the modules shut down, so the pool is still there for the last records and checkpoints. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.stopListening?.();
    clearInterval(this.gauges);
    this.wake();
    await this.loop;
    const unstarted = [...this.lanes.values()].flatMap((lane) => lane.retries.splice(0));
    await this.deliveries.release(unstarted.map((delivery) => delivery.id)).catch(() => undefined);
    await Promise.all(this.attempts);
    await this.flushAll();
    await this.ownership.close();
    this.sender.close();
  }

  /** Ends the current idle wait, or the next one at once when the loop is busy (a wake-up is never lost). */
  private readonly wake = () => {
    if (this.waker === undefined) this.woken = true;
    else this.waker();
  };

  private async run(): Promise<void> {
    const { pollIntervalMs, rebalanceIntervalMs, checkpointIntervalMs } = this.config.delivery;
    while (!this.stopping) {
      try {
        if (!this.ownership.connected) await this.ownership.connect();
        this.window ??= new NotificationWindow(this.config.delivery.windowBytes, await this.log.head());
        const now = Date.now();
        if (now - this.lastSweep >= pollIntervalMs) {
          this.lastSweep = now;
          await this.sweep();
        }
        if (now - this.lastRebalance >= rebalanceIntervalMs) {
          this.lastRebalance = now;
          await this.rebalance();
        }
        const more = await this.tail();
        await this.claimRetries();
        for (const lane of this.lanes.values()) this.pump(lane);
        await this.finishDrained();
        if (Date.now() - this.lastFlush >= checkpointIntervalMs) void this.flush();
        if (more) continue;
        await this.idle(Math.min(pollIntervalMs, checkpointIntervalMs));
      } catch (error) {
        // Postgres went away: try again after a pause (claims of this replica lapse and are taken over).
        this.logger.warn({ msg: 'Webhook dispatch interrupted', err: error instanceof Error ? error.message : error });
        await this.idle(pollIntervalMs);
      }
    }
  }

  /**
   * Ends due retries of endpoints that cannot receive anything now, reloads the subscriptions (a new URL, secret or
   * event types apply from the next attempt), and lets a paused cursor probe again once its retries are all over.
   */
  private async sweep(): Promise<void> {
    const ended = await this.deliveries.failUndeliverable();
    if (ended > 0) this.metrics.deliveries.inc({ outcome: 'failed' }, ended);
    if (Date.now() - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = Date.now();
      const { recordRetentionMs, logRetentionMs } = this.config.delivery;
      const purged = await this.deliveries.purge(recordRetentionMs, logRetentionMs);
      if (purged.records + purged.messages > 0) this.logger.log({ msg: 'Expired webhook records purged', ...purged });
    }
    this.subscriptions = await this.deliveries.subscriptions();
    const byClient = new Map(this.subscriptions.map((subscription) => [subscription.clientId, subscription]));
    for (const lane of this.lanes.values()) {
      const subscription = byClient.get(lane.clientId);
      if (subscription === undefined || !subscription.deliverable) this.drain(lane);
      else lane.update(subscription);
    }
    const paused = [...this.lanes.values()].filter((lane) => lane.paused && lane.idle && !lane.draining);
    if (paused.length === 0) return;
    const waiting = await this.deliveries.withPendingRetries(paused.map((lane) => lane.clientId));
    for (const lane of paused) {
      // Every retry is over (delivered, failed or dead): one more message probes the endpoint.
      if (!waiting.has(lane.clientId)) lane.failuresInARow = this.config.delivery.backoffAfter - 1;
    }
  }

  /** Takes endpoints up to this replica's fair share and hands back those above it. */
  private async rebalance(): Promise<void> {
    const deliverable = this.subscriptions.filter((subscription) => subscription.deliverable);
    const share = Math.ceil(deliverable.length / (await this.ownership.replicas()));
    const held = [...this.lanes.values()].filter((lane) => !lane.draining);
    for (const lane of held.slice(share)) this.drain(lane);
    let count = Math.min(held.length, share);
    for (const subscription of deliverable) {
      if (count >= share || this.stopping) break;
      if (this.lanes.has(subscription.clientId) || !(await this.ownership.acquire(subscription.endpointNo))) continue;
      const taken = await this.deliveries.takeEndpoint(subscription.clientId);
      // The session may have dropped while the endpoint was taken: its lock went with it.
      if (taken === undefined || !this.ownership.owns(subscription.endpointNo)) {
        await this.ownership.release(subscription.endpointNo);
        continue;
      }
      this.lanes.set(
        subscription.clientId,
        new EndpointLane(subscription, taken.epoch, taken.cursor, this.config.delivery.backoffAfter),
      );
      count += 1;
    }
  }

  /** Reads what was appended to the log into the window; true when there is more to read at once. */
  private async tail(): Promise<boolean> {
    const window = this.window!;
    for (let page = 0; page < TAIL_PAGES_PER_ROUND; page += 1) {
      const messages = await this.log.after(window.head, TAIL_PAGE);
      window.append(messages);
      if (messages.length < TAIL_PAGE) return false;
    }
    return true;
  }

  /**
   * Claims due retries of the endpoints held here: for each, up to its concurrency in flight plus as many waiting,
   * within WEBHOOK_MAX_IN_FLIGHT in flight and as many waiting overall.
   */
  private async claimRetries(): Promise<void> {
    const { endpointConcurrency, maxInFlight } = this.config.delivery;
    const lanes = [...this.lanes.values()].filter((lane) => !lane.draining);
    const waiting = lanes.reduce((sum, lane) => sum + lane.retries.length, 0);
    const room = 2 * maxInFlight - this.total - waiting;
    if (lanes.length === 0 || room <= 0) return;
    const capacity = 2 * endpointConcurrency;
    const slots = new Map(
      lanes.map((lane) => [lane.clientId, Math.max(0, capacity - lane.inFlight - lane.retries.length)]),
    );
    const claimed = await this.deliveries.claim(
      slots,
      capacity,
      room,
      this.leaseMs,
      lanes.map((lane) => lane.clientId),
    );
    const unheld: string[] = [];
    for (const delivery of claimed) {
      const lane = this.lanes.get(delivery.clientId);
      // A lane let go meanwhile (the session dropped): its claims go back at once.
      if (lane === undefined || lane.draining) unheld.push(delivery.id);
      else lane.retries.push(delivery);
    }
    await this.deliveries.release(unheld);
  }

  /** Starts what the lane may start now: its retries first, then its next messages. */
  private pump(lane: EndpointLane): void {
    const { endpointConcurrency, maxInFlight } = this.config.delivery;
    for (let round = 0; round < 2 && !this.stopping; round += 1) {
      this.fill(lane);
      while (lane.inFlight < endpointConcurrency) {
        if (this.total >= maxInFlight) {
          if (lane.retries.length > 0 || lane.nextReady) this.starved.add(lane);
          return;
        }
        const retry = lane.draining ? undefined : lane.retries.shift();
        if (retry !== undefined) {
          this.start(lane, retry, (record) => this.retried(lane, record));
          continue;
        }
        const message = lane.nextMessage();
        if (message === undefined) break;
        this.start(lane, this.firstAttemptOf(lane, message), (record) => this.firstAttempted(lane, message, record));
      }
    }
  }

  /** Tops up the lane's buffer: from the window, or a page from the database when its cursor is behind the window. */
  private fill(lane: EndpointLane): void {
    const { endpointConcurrency } = this.config.delivery;
    if (lane.draining || lane.fetching || lane.buffer.length >= endpointConcurrency || this.window === undefined) {
      return;
    }
    const read = this.window.read(lane.scope, lane.readPosition, 2 * endpointConcurrency - lane.buffer.length);
    if (read.kind === 'read') {
      lane.fetched(read.messages, read.scannedTo);
      return;
    }
    lane.fetching = true;
    const head = this.window.head;
    this.log
      .page(lane.scope, lane.readPosition, head, PAGE)
      .then((messages) =>
        lane.fetched(messages, messages.length < PAGE ? head : messages[messages.length - 1]!.position),
      )
      .catch((error: unknown) =>
        this.logger.warn({
          msg: 'Webhook messages could not be read',
          clientId: lane.clientId,
          err: error instanceof Error ? error.message : error,
        }),
      )
      .finally(() => {
        lane.fetching = false;
        this.pump(lane);
      });
  }

  private firstAttemptOf(lane: EndpointLane, message: LogMessage): ClaimedDelivery {
    const { subscription } = lane;
    return {
      id: deliveryIdOf(message.position, subscription.endpointNo),
      clientId: subscription.clientId,
      eventId: message.eventId,
      eventType: message.eventType,
      attempt: 1,
      scheduleStart: 0,
      webhookUrl: subscription.webhookUrl!,
      path: message.path,
      body: message.body,
      bytes: message.bytes,
      headers: message.headers,
      correlationId: message.correlationId,
      traceParent: message.traceParent,
      secret: subscription.secret!,
      ...(subscription.previousSecret === undefined ? {} : { previousSecret: subscription.previousSecret }),
    };
  }

  private start(lane: EndpointLane, delivery: ClaimedDelivery, outcome: (record: AttemptRecord) => void): void {
    lane.inFlight += 1;
    this.total += 1;
    const attempt = this.attempt
      .execute(delivery)
      .catch((error: unknown): AttemptRecord => {
        // Not sent, or its outcome not known: tried again after the lease (same webhook-id).
        const message = error instanceof Error ? error.message : String(error);
        this.logger.error({
          msg: 'Webhook attempt could not be made',
          deliveryId: delivery.id,
          clientId: lane.clientId,
          err: message,
        });
        return {
          deliveryId: delivery.id,
          clientId: delivery.clientId,
          attempt: delivery.attempt,
          attemptedAt: new Date(),
          url: delivery.webhookUrl,
          latencyMs: 0,
          error: `the attempt could not be made: ${message}`,
          status: 'PENDING',
          nextAttemptAt: new Date(Date.now() + this.leaseMs),
        };
      })
      .then(outcome)
      .finally(() => {
        lane.inFlight -= 1;
        this.total -= 1;
        this.attempts.delete(attempt);
        // The freed slot goes first to the lanes that waited for one, oldest first; a lane that finds the replica full
        // queues again at the end: under WEBHOOK_MAX_IN_FLIGHT the endpoints take turns, none starves another.
        for (const other of this.starved) {
          if (this.total >= this.config.delivery.maxInFlight) break;
          this.starved.delete(other);
          this.pump(other);
        }
        this.pump(lane);
        if (lane.draining && lane.idle) this.wake();
      });
    this.attempts.add(attempt);
  }

  private firstAttempted(lane: EndpointLane, message: LogMessage, record: AttemptRecord): void {
    lane.attempted(message);
    if (record.status === 'DELIVERED') {
      lane.unfinished.delete(message.position);
      lane.failuresInARow = 0;
      if (lane.reportSuccess) {
        lane.reportSuccess = false;
        this.queue({ record: { ...record, first: { eventId: message.eventId, row: false } } });
      }
      return;
    }
    this.counted(lane, record);
    this.queue({
      record: { ...record, first: { eventId: message.eventId, row: true } },
      lane,
      position: message.position,
    });
  }

  private retried(lane: EndpointLane, record: AttemptRecord): void {
    if (record.status === 'DELIVERED') {
      lane.failuresInARow = 0;
      lane.reportSuccess = false;
    } else {
      this.counted(lane, record);
    }
    this.queue({ record });
  }

  /** A failure: a retryable one (PENDING, DEAD) adds to the endpoint's run; a 400 is the message's own outcome. */
  private counted(lane: EndpointLane, record: AttemptRecord): void {
    if (record.status === 'PENDING' || record.status === 'DEAD') lane.failuresInARow += 1;
    lane.reportSuccess = true;
  }

  private queue(entry: QueuedRecord): void {
    this.records.push(entry);
    if (this.records.length >= RECORD_BATCH) void this.flush();
  }

  /**
   * Writes the queued records and the checkpoints they allow, in one transaction, after the write in progress. A
   * batch that cannot be written stays queued for the next round: its messages stay unfinished, so no cursor passes
   * them meanwhile.
   */
  private flush(): Promise<void> {
    this.lastFlush = Date.now();
    this.flushing = this.flushing.then(async () => {
      const batch = this.records.splice(0, RECORD_BATCH);
      const durable = new Map<EndpointLane, Set<number>>();
      for (const { lane, position } of batch) {
        if (lane === undefined || position === undefined) continue;
        const positions = durable.get(lane) ?? new Set<number>();
        positions.add(position);
        durable.set(lane, positions);
      }
      const checkpoints: (Checkpoint & { lane: EndpointLane })[] = [];
      for (const lane of new Set([...this.lanes.values(), ...durable.keys()])) {
        const position = lane.checkpoint(durable.get(lane));
        if (position > lane.written) {
          checkpoints.push({ clientId: lane.clientId, epoch: lane.epoch, position, lane });
        }
      }
      if (batch.length === 0 && checkpoints.length === 0) return;
      try {
        const { fenced } = await this.deliveries.recordAttempts(
          batch.map(({ record }) => record),
          checkpoints,
        );
        for (const { lane, position } of checkpoints) lane.written = position;
        // Endpoints another replica holds now (this one lost them without noticing): let them go.
        for (const clientId of fenced) {
          const lane = this.lanes.get(clientId);
          if (lane !== undefined) this.drain(lane);
        }
        for (const { lane, position } of batch)
          if (lane !== undefined && position !== undefined) lane.unfinished.delete(position);
      } catch (error) {
        this.logger.error({
          msg: 'Webhook attempt records could not be written; tried again',
          deliveries: batch.length,
          err: error instanceof Error ? error.message : error,
        });
        this.records.unshift(...batch);
      }
    });
    return this.flushing;
  }

  /** Writes every queued record and checkpoint. */
  private async flushAll(): Promise<void> {
    for (let round = 0; round < 20; round += 1) {
      await this.flush();
      if (this.records.length === 0) return;
    }
  }

  /** Stops starting the lane's work: its claimed retries go back; it is let go once its attempts are over. */
  private drain(lane: EndpointLane): void {
    if (lane.draining) return;
    lane.draining = true;
    const retries = lane.retries.splice(0);
    void this.deliveries.release(retries.map((delivery) => delivery.id)).catch(() => undefined);
  }

  /** Lanes drained and idle: their records and checkpoints are written, then their endpoints released. */
  private async finishDrained(): Promise<void> {
    const drained = [...this.lanes.values()].filter(
      (lane) => lane.draining && lane.inFlight === 0 && lane.retries.length === 0,
    );
    if (drained.length === 0) return;
    await this.flushAll();
    for (const lane of drained) {
      if (!lane.idle) continue;
      this.lanes.delete(lane.clientId);
      this.starved.delete(lane);
      await this.ownership.release(lane.subscription.endpointNo);
    }
  }

  /** The ownership session dropped: every endpoint may be another replica's already. */
  private loseAll(): void {
    for (const lane of this.lanes.values()) this.drain(lane);
    this.wake();
  }

  private idle(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waker = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waker = done;
      if (this.stopping || this.woken) done();
      this.woken = false;
    });
  }

  private async refreshGauges(): Promise<void> {
    try {
      const summary = await this.deliveries.summary();
      this.metrics.pending.set(summary.pending);
      this.metrics.backlog.set(summary.backlog);
      this.metrics.oldestPendingAge.set(summary.oldestPendingAgeSeconds);
      this.metrics.failingEndpoints.set(summary.failingEndpoints);
      this.metrics.endpointsHeld.set([...this.lanes.values()].filter((lane) => !lane.draining).length);
    } catch {
      // The next round tries again; readiness reports the database.
    }
  }
}
