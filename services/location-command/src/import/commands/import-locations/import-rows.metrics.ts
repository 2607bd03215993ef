import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsRegistry } from '@lx/platform';
import type { BatchOutcome } from './import-report';

/** `location_import_rows_total`: rows of bulk imports by outcome, counted when their batch has committed. */
@Injectable()
export class ImportRowsMetrics {
  private readonly rowsTotal: Counter<'outcome'>;

  constructor(metrics: MetricsRegistry) {
    this.rowsTotal = new Counter({
      name: 'location_import_rows_total',
      help: 'Rows of bulk imports by outcome (created, updated, unchanged, rejected, retired)',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
  }

  countBatch(outcome: BatchOutcome): void {
    this.rowsTotal.inc({ outcome: 'created' }, outcome.created);
    this.rowsTotal.inc({ outcome: 'updated' }, outcome.updated);
    this.rowsTotal.inc({ outcome: 'unchanged' }, outcome.unchanged);
    this.rowsTotal.inc({ outcome: 'rejected' }, outcome.rejections.length);
  }

  countRetired(count: number): void {
    this.rowsTotal.inc({ outcome: 'retired' }, count);
  }
}
