import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { EXPORT_FORMATS, type ExportFormat } from '@lx/contracts';
import { MetricsRegistry } from '@lx/platform';

const EXPORT_OUTCOMES = ['completed', 'failed', 'retried', 'interrupted'] as const;
type ExportOutcome = (typeof EXPORT_OUTCOMES)[number];

/** What an SRE watches of the exports: outcomes, generation time, rows, and the queue of PENDING work. */
@Injectable()
export class ExportMetrics {
  readonly requests: Counter<'outcome'>;
  readonly outcomes: Counter<'format' | 'outcome'>;
  readonly duration: Histogram<'format'>;
  readonly rows: Counter<'format'>;
  readonly pending: Gauge;
  readonly oldestPendingAge: Gauge;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.requests = new Counter({
      name: 'export_requests_total',
      help: 'POST /locations/exports by outcome: accepted, replayed (Idempotency-Key), rate_limited, too_large',
      labelNames: ['outcome'],
      registers,
    });
    this.outcomes = new Counter({
      name: 'exports_total',
      help: 'Generation attempts by format and outcome: completed, failed (final), retried, interrupted',
      labelNames: ['format', 'outcome'],
      registers,
    });
    this.duration = new Histogram({
      name: 'export_generation_duration_seconds',
      help: 'Time of a successful generation, from claim to COMPLETED',
      labelNames: ['format'],
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    });
    this.rows = new Counter({
      name: 'export_rows_written_total',
      help: 'Locations written into completed export files',
      labelNames: ['format'],
      registers,
    });
    this.pending = new Gauge({ name: 'exports_pending', help: 'Export requests in PENDING', registers });
    this.oldestPendingAge = new Gauge({
      name: 'export_oldest_pending_age_seconds',
      help: 'Age of the oldest PENDING export request (0 when none)',
      registers,
    });
    // Every outcome's series from the start, at 0: the first failure after a restart is then an increase an alert
    // sees, not the birth of a series at 1.
    for (const format of EXPORT_FORMATS) {
      for (const outcome of EXPORT_OUTCOMES) this.outcomes.inc({ format, outcome }, 0);
    }
  }

  outcome(format: ExportFormat, outcome: ExportOutcome): void {
    this.outcomes.inc({ format, outcome });
  }
}
