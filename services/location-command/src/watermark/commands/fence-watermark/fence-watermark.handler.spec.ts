import type { DataSource } from 'typeorm';
import { Clock, MetricsRegistry } from '@lx/platform';
import { WatermarkFenceTimeoutError } from '../../watermark.errors';
import { FenceWatermarkHandler } from './fence-watermark.handler';

const NOW = new Date('2024-01-15T10:00:00.000Z');

class FixedClock extends Clock {
  now(): Date {
    return NOW;
  }
}

/**
 * A data source whose fence update answers `fence`, whose next transaction id is 42, and on which the transactions
 * in flight end after `runningLooks` looks and the relay has published after `pendingLooks` more. Every statement is
 * recorded; `error` fails the first one.
 */
function fakeDataSource(
  options: { error?: Error; runningLooks?: number; pendingLooks?: number; fence?: unknown[] } = {},
) {
  const statements: { sql: string; parameters: unknown[] }[] = [];
  let runningLooks = options.runningLooks ?? 0;
  let pendingLooks = options.pendingLooks ?? 0;
  const dataSource = {
    query: (sql: string, parameters: unknown[] = []) => {
      statements.push({ sql, parameters });
      if (options.error) return Promise.reject(options.error);
      if (sql.includes('move_watermark_fence')) return Promise.resolve(options.fence ?? [{ fenced_at: NOW }]);
      if (sql.includes('pg_current_xact_id')) return Promise.resolve([{ next: '42' }]);
      if (sql.includes('pg_snapshot_xmin')) return Promise.resolve([{ done: runningLooks-- <= 0 }]);
      return Promise.resolve([{ done: pendingLooks-- <= 0 }]);
    },
  } as unknown as DataSource;
  return { dataSource, statements };
}

function handlerOn(dataSource: DataSource, metrics = new MetricsRegistry()) {
  const options = { lockTimeoutMs: 250, publishTimeoutMs: 200, pollIntervalMs: 1 };
  return new FenceWatermarkHandler(dataSource, new FixedClock(), options, metrics);
}

async function fenceOutcomes(metrics: MetricsRegistry): Promise<Record<string, number>> {
  const metric = await metrics.registry.getSingleMetric('watermark_fence_duration_seconds')!.get();
  return Object.fromEntries(
    metric.values
      .filter((value) => (value as { metricName?: string }).metricName === 'watermark_fence_duration_seconds_count')
      .map((value) => [String(value.labels['outcome']), value.value]),
  );
}

describe('FenceWatermarkHandler', () => {
  it('given a quiet service, when fenced, then fence move, next transaction id, ended and published looks, in order', async () => {
    const { dataSource, statements } = fakeDataSource();

    await expect(handlerOn(dataSource).execute()).resolves.toEqual(NOW);

    expect(
      statements.map(({ sql, parameters }) => [sql.trim().split(/\s+/).slice(0, 4).join(' '), parameters]),
    ).toEqual([
      ['SELECT move_watermark_fence($1::timestamptz) AS fenced_at', [NOW]],
      ['SELECT pg_current_xact_id()::text AS next', []],
      ['SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8', ['42']],
      ['SELECT NOT EXISTS (', ['42']],
    ]);
  });

  it('given transactions in flight and events not yet published, when fenced, then it answers once both are done', async () => {
    const { dataSource, statements } = fakeDataSource({ runningLooks: 2, pendingLooks: 3 });
    const metrics = new MetricsRegistry();

    await expect(handlerOn(dataSource, metrics).execute()).resolves.toEqual(NOW);

    expect(statements.filter(({ sql }) => sql.includes('pg_snapshot_xmin'))).toHaveLength(3);
    expect(statements.filter(({ sql }) => sql.includes('relay_checkpoint'))).toHaveLength(4);
    expect(await fenceOutcomes(metrics)).toEqual({ fenced: 1 });
  });

  it('given a log never published, when fenced, then WatermarkFenceTimeoutError for the publication', async () => {
    const { dataSource } = fakeDataSource({ pendingLooks: Number.MAX_SAFE_INTEGER });
    const metrics = new MetricsRegistry();

    const error = await handlerOn(dataSource, metrics)
      .execute()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(WatermarkFenceTimeoutError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { step: 'publication', timeoutMs: 200 } });
    expect(await fenceOutcomes(metrics)).toEqual({ timeout: 1 });
  });

  it('given a transaction in flight past the timeout, when fenced, then WatermarkFenceTimeoutError for the writes', async () => {
    const { dataSource, statements } = fakeDataSource({ runningLooks: Number.MAX_SAFE_INTEGER });

    await expect(handlerOn(dataSource).execute()).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      details: { step: 'writes', timeoutMs: 250 },
    });
    expect(statements.some(({ sql }) => sql.includes('relay_checkpoint'))).toBe(false);
  });

  it('given a database failure, when fenced, then it is thrown as it is and counted as an error', async () => {
    const { dataSource } = fakeDataSource({ error: new Error('connection lost') });
    const metrics = new MetricsRegistry();

    await expect(handlerOn(dataSource, metrics).execute()).rejects.toThrow('connection lost');
    expect(await fenceOutcomes(metrics)).toEqual({ error: 1 });
  });

  it('given a fence table without its row, when fenced, then it fails instead of handing out a watermark', async () => {
    const { dataSource } = fakeDataSource({ fence: [{ fenced_at: null }] });

    await expect(handlerOn(dataSource).execute()).rejects.toThrow(/watermark_fence has no row/);
  });
});
