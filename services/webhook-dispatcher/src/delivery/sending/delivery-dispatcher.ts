import { WakeUp } from '@lx/platform';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { WEBHOOK_DISPATCHER_CONFIG, type WebhookDispatcherConfig } from '../../config/webhook-dispatcher.config';
import { type AttemptRecord, type ClaimedDelivery, DeliveryRepository } from '../infrastructure/delivery.repository';
import { DeliveryMetrics } from '../infrastructure/delivery-metrics';
import { AttemptDeliveryHandler } from './attempt-delivery.handler';
import { WebhookSender } from './webhook-sender';

/** Attempt records written in one statement at most. */
const RECORD_BATCH = 500;

/**
 * Runs the deliveries. Claims due deliveries per endpoint (client): up to WEBHOOK_ENDPOINT_CONCURRENCY attempts in
 * flight and as many claimed ahead, so a freed slot starts the next attempt without a database round trip
 * (WEBHOOK_MAX_IN_FLIGHT in flight per replica in all). Each attempt runs without waiting for the others; their
 * records are written in batches. An endpoint that hangs or fails holds only its own slots, so it never delays
 * another client's deliveries; a failing endpoint's deliveries are only claimed when their schedule makes them due.
 * Idle, it waits for a wake-up (new deliveries, a freed slot) or the poll interval. On shutdown it stops claiming,
 * hands the deliveries claimed ahead back, lets the attempts in flight finish and records them.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryDispatcher.name);
  /** Per endpoint (client): attempts in flight and deliveries claimed ahead, waiting for a free slot. */
  private readonly lanes = new Map<string, { inFlight: number; waiting: ClaimedDelivery[] }>();
  private readonly attempts = new Set<Promise<void>>();
  private records: AttemptRecord[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private stopping = false;
  private loop?: Promise<void>;
  private waker?: () => void;
  private woken = false;
  private gauges?: NodeJS.Timeout;
  private stopListening?: () => void;
  /** Attempts in flight over all endpoints. */
  private total = 0;
  /** Deliveries claimed ahead over all endpoints. */
  private waiting = 0;
  private readonly leaseMs: number;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly attempt: AttemptDeliveryHandler,
    private readonly sender: WebhookSender,
    private readonly wakeUp: WakeUp,
    private readonly metrics: DeliveryMetrics,
    @Inject(WEBHOOK_DISPATCHER_CONFIG) private readonly config: WebhookDispatcherConfig,
  ) {
    const { connectTimeoutMs, responseTimeoutMs } = config.delivery;
    // A delivery claimed ahead waits at most for one attempt of its endpoint before its own starts: the lease covers
    // two attempts and 5 s to write the record, so only a crashed replica's claims lapse.
    this.leaseMs = 2 * (connectTimeoutMs + responseTimeoutMs) + 5_000;
  }

  onApplicationBootstrap(): void {
    this.stopListening = this.wakeUp.listen(this.wake);
    this.loop = this.run();
    void this.refreshGauges();
    this.gauges = setInterval(() => void this.refreshGauges(), 5_000);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.stopListening?.();
    clearInterval(this.gauges);
    this.wake();
    await this.loop;
    // Deliveries claimed ahead are handed back, due at once, for the next replica.
    const unstarted = [...this.lanes.values()].flatMap((lane) => lane.waiting.splice(0));
    await this.deliveries.release(unstarted.map((delivery) => delivery.id)).catch(() => undefined);
    await Promise.all(this.attempts);
    await this.flush();
    await this.flushing;
    this.sender.close();
  }

  /** Ends the current idle wait, or the next one at once when the loop is busy (a wake-up is never lost). */
  private readonly wake = () => {
    if (this.waker === undefined) this.woken = true;
    else this.waker();
  };

  private async run(): Promise<void> {
    let lastSweep = 0;
    while (!this.stopping) {
      try {
        if (Date.now() - lastSweep >= this.config.delivery.pollIntervalMs) {
          lastSweep = Date.now();
          const ended = await this.deliveries.failUndeliverable();
          if (ended > 0) this.metrics.deliveries.inc({ outcome: 'failed' }, ended);
        }
        const claimed = await this.claim();
        for (const delivery of claimed) this.dispatch(delivery);
        if (claimed.length === 0 || this.total + this.waiting >= 2 * this.config.delivery.maxInFlight) {
          await this.idle(this.config.delivery.pollIntervalMs);
        }
      } catch (error) {
        // Postgres went away: try again after a pause (claims of this replica lapse and are taken over).
        this.logger.warn({ msg: 'Webhook dispatch interrupted', err: error instanceof Error ? error.message : error });
        await this.idle(this.config.delivery.pollIntervalMs);
      }
    }
  }

  /**
   * Claims for each endpoint up to its concurrency in flight plus as many again waiting (so a freed slot starts the
   * next attempt without a database round trip), within WEBHOOK_MAX_IN_FLIGHT in flight and as many waiting overall.
   */
  private claim(): Promise<ClaimedDelivery[]> {
    const { endpointConcurrency, maxInFlight } = this.config.delivery;
    const room = 2 * maxInFlight - this.total - this.waiting;
    if (room <= 0) return Promise.resolve([]);
    const capacity = 2 * endpointConcurrency;
    const slots = new Map(
      [...this.lanes].map(([client, lane]) => [client, Math.max(0, capacity - lane.inFlight - lane.waiting.length)]),
    );
    return this.deliveries.claim(slots, capacity, room, this.leaseMs);
  }

  /** Starts the delivery when its endpoint has a free slot (and the replica is under its limit), else queues it. */
  private dispatch(delivery: ClaimedDelivery): void {
    const lane = this.laneOf(delivery.clientId);
    if (lane.inFlight < this.config.delivery.endpointConcurrency && this.total < this.config.delivery.maxInFlight) {
      this.start(delivery);
    } else {
      lane.waiting.push(delivery);
      this.waiting += 1;
    }
  }

  private laneOf(clientId: string): { inFlight: number; waiting: ClaimedDelivery[] } {
    let lane = this.lanes.get(clientId);
    if (lane === undefined) {
      lane = { inFlight: 0, waiting: [] };
      this.lanes.set(clientId, lane);
    }
    return lane;
  }

  private start(delivery: ClaimedDelivery): void {
    const lane = this.laneOf(delivery.clientId);
    lane.inFlight += 1;
    this.total += 1;
    // The slot is free once the attempt is made; its record is written with the next batch (until then the claim
    // keeps the delivery from being attempted again).
    const attempt = this.attempt
      .execute(delivery)
      .then((record) => void this.record(record))
      .catch((error: unknown) => {
        // Not sent, or its outcome not known: the claim lapses and the attempt is made again (same webhook-id).
        this.logger.error({
          msg: 'Webhook attempt could not be made',
          deliveryId: delivery.id,
          clientId: delivery.clientId,
          err: error instanceof Error ? error.message : error,
        });
      })
      .finally(() => {
        lane.inFlight -= 1;
        this.total -= 1;
        this.attempts.delete(attempt);
        const next = this.stopping ? undefined : lane.waiting.shift();
        if (next !== undefined) {
          this.waiting -= 1;
          this.start(next);
        }
        if (lane.inFlight === 0 && lane.waiting.length === 0) this.lanes.delete(delivery.clientId);
        // Claim more once the lane has room for a good share of a batch.
        if (lane.waiting.length <= this.config.delivery.endpointConcurrency / 2) this.wake();
      });
    this.attempts.add(attempt);
  }

  /** Queues the record; the first record of a batch schedules the write of the batch. */
  private record(record: AttemptRecord): Promise<void> {
    this.records.push(record);
    if (this.records.length === 1 || this.records.length >= RECORD_BATCH) return this.flush();
    return this.flushing;
  }

  /** Writes the queued records after the write in progress, so records are written in batches, in order. */
  private flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.records.splice(0, RECORD_BATCH);
      if (batch.length === 0) return;
      try {
        await this.deliveries.recordAttempts(batch);
      } catch (error) {
        // Lost outcomes: these deliveries are attempted again when their claims lapse (same webhook-id).
        this.logger.error({
          msg: 'Webhook attempt records could not be written',
          deliveries: batch.length,
          err: error instanceof Error ? error.message : error,
        });
      }
      if (this.records.length > 0) void this.flush();
    });
    return this.flushing;
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
      this.metrics.oldestPendingAge.set(summary.oldestPendingAgeSeconds);
      this.metrics.failingEndpoints.set(summary.failingEndpoints);
    } catch {
      // The next round tries again; readiness reports the database.
    }
  }
}
