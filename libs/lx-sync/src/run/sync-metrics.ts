import { Counter, Gauge, Registry } from 'prom-client';

/** What an RSP's SRE watches of lx-sync run: on GET /metrics, in the Prometheus text format. */
export class SyncMetrics {
  readonly registry = new Registry();
  readonly webhooks = new Counter({
    name: 'lx_sync_webhooks_total',
    help: 'Webhook deliveries received, by outcome (applied, stale, duplicate, ignored, invalid_signature, invalid_payload, error)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly feedChanges = new Counter({
    name: 'lx_sync_feed_changes_total',
    help: 'Changes read from the change feed (applied or already in the mirror)',
    registers: [this.registry],
  });
  readonly feedApplied = new Counter({
    name: 'lx_sync_feed_applied_total',
    help: 'Changes from the change feed that the mirror did not have yet (each one a webhook missed or still on its way)',
    registers: [this.registry],
  });
  readonly feedSkipped = new Counter({
    name: 'lx_sync_feed_skipped_total',
    help: 'Malformed changes of the feed passed over (each logged; the mirror may miss them until a check repairs it)',
    registers: [this.registry],
  });
  readonly lastFeed = new Gauge({
    name: 'lx_sync_feed_last_success_timestamp_seconds',
    help: 'When the mirror last reached the end of the change feed (Unix time)',
    registers: [this.registry],
  });
  readonly lastCheck = new Gauge({
    name: 'lx_sync_check_last_timestamp_seconds',
    help: 'When the last check (statistics and digest) ended (Unix time)',
    registers: [this.registry],
  });
  readonly drifted = new Gauge({
    name: 'lx_sync_check_drifted_ids',
    help: 'Ids the last check found drifted (then repaired)',
    registers: [this.registry],
  });
  readonly repaired = new Counter({
    name: 'lx_sync_repaired_total',
    help: 'Rows repaired (written or removed) after a check found them drifted',
    registers: [this.registry],
  });
  readonly failures = new Counter({
    name: 'lx_sync_task_failures_total',
    help: 'Failed runs of a background task (feed, check), each retried at its next interval',
    labelNames: ['task'],
    registers: [this.registry],
  });
  readonly rows = new Gauge({
    name: 'lx_sync_mirror_rows',
    help: 'Live rows of the mirror at the last check, by resource',
    labelNames: ['resource'],
    registers: [this.registry],
  });
}
