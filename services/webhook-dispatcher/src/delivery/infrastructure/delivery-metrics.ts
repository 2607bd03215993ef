import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsRegistry } from '@lx/platform';

/** What an SRE watches of the webhooks: outcomes, attempt latency, the queue, failing endpoints, credential problems. */
@Injectable()
export class DeliveryMetrics {
  readonly events: Counter<'outcome'>;
  readonly deliveries: Counter<'outcome'>;
  readonly attempts: Counter<'result'>;
  readonly attemptDuration: Histogram<'result'>;
  readonly unauthorized: Counter<'client_id'>;
  readonly pending: Gauge;
  readonly backlog: Gauge;
  readonly endpointsHeld: Gauge;
  readonly oldestPendingAge: Gauge;
  readonly failingEndpoints: Gauge;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.events = new Counter({
      name: 'webhook_events_total',
      help: 'Consumed events by outcome: logged (appended to the notification log), repeated (already in it)',
      labelNames: ['outcome'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Deliveries that ended, by outcome: delivered, failed (400, 410, refused address, endpoint disabled), dead',
      labelNames: ['outcome'],
      registers,
    });
    // Each outcome's series from the start, at 0: the first dead delivery after a restart is then an increase an
    // alert sees, not the birth of a series at 1.
    for (const outcome of ['delivered', 'failed', 'dead']) this.deliveries.inc({ outcome }, 0);
    this.attempts = new Counter({
      name: 'webhook_attempts_total',
      help: 'Attempts by result: delivered, rejected, gone, address-not-allowed, or the reason of a retry',
      labelNames: ['result'],
      registers,
    });
    this.attemptDuration = new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Time of one attempt, from the request to the end of the reply (or the failure)',
      labelNames: ['result'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.unauthorized = new Counter({
      name: 'webhook_unauthorized_total',
      help: 'Attempts an RSP answered 401 (a credentials problem on its side), by client',
      labelNames: ['client_id'],
      registers,
    });
    this.pending = new Gauge({
      name: 'webhook_deliveries_pending',
      help: 'Deliveries waiting for a retry (PENDING rows)',
      registers,
    });
    this.backlog = new Gauge({
      name: 'webhook_cursor_backlog_messages',
      help: 'Messages of the log behind the cursors of deliverable endpoints, summed over the endpoints',
      registers,
    });
    this.endpointsHeld = new Gauge({
      name: 'webhook_endpoints_held',
      help: 'Endpoints this replica serves',
      registers,
    });
    this.oldestPendingAge = new Gauge({
      name: 'webhook_oldest_pending_age_seconds',
      help: 'Age of the oldest message waiting: a delivery waiting for a retry, or the first message behind a cursor (0 when none)',
      registers,
    });
    this.failingEndpoints = new Gauge({
      name: 'webhook_endpoints_failing',
      help: 'Endpoints whose latest attempts failed, or disabled after 410',
      registers,
    });
  }
}
