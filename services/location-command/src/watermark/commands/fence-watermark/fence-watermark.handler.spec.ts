import type { DataSource, EntityManager } from 'typeorm';
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
 * A data source on schema `lc` whose fence transaction answers `fence` (or fails its lock with `lockError`) and whose
 * outbox looks pending for the first `pendingLooks` looks. Every statement is recorded.
 */
function fakeDataSource(options: { lockError?: Error; pendingLooks?: number; fence?: unknown[] } = {}) {
  const statements: { sql: string; parameters: unknown[] }[] = [];
  let pendingLooks = options.pendingLooks ?? 0;
  const manager = {
    query: (sql: string, parameters: unknown[]) => {
      statements.push({ sql, parameters });
      if (sql.includes('pg_advisory_xact_lock(') && options.lockError) return Promise.reject(options.lockError);
      if (sql.includes('UPDATE watermark_fence'))
        return Promise.resolve(options.fence ?? [{ watermark: NOW, position: '42' }]);
      return Promise.resolve([]);
    },
  } as unknown as EntityManager;
  const dataSource = {
    options: { schema: 'lc' },
    transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work(manager),
    query: (sql: string, parameters: unknown[]) => {
      statements.push({ sql, parameters });
      pendingLooks -= 1;
      return Promise.resolve([{ pending: pendingLooks >= 0 }]);
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
  it('given a quiet service, when fenced, then lock timeout, exclusive lock, fence move and outbox look, in order', async () => {
    const { dataSource, statements } = fakeDataSource();

    await expect(handlerOn(dataSource).execute()).resolves.toEqual(NOW);

    expect(
      statements.map(({ sql, parameters }) => [sql.trim().split(/\s+/).slice(0, 3).join(' '), parameters]),
    ).toEqual([
      ["SELECT set_config('lock_timeout', $1,", ['250ms']],
      ['SELECT pg_advisory_xact_lock(1279787347, hashtext($1))', ['watermark-fence:lc']],
      ['WITH fence AS', [NOW]],
      ['SELECT EXISTS (SELECT', ['42']],
    ]);
  });

  it('given outbox rows up to the fence not yet published, when fenced, then it answers once they are', async () => {
    const { dataSource, statements } = fakeDataSource({ pendingLooks: 3 });
    const metrics = new MetricsRegistry();

    await expect(handlerOn(dataSource, metrics).execute()).resolves.toEqual(NOW);

    expect(statements.filter(({ sql }) => sql.includes('published_at IS NULL'))).toHaveLength(4);
    expect(await fenceOutcomes(metrics)).toEqual({ fenced: 1 });
  });

  it('given an outbox never published, when fenced, then WatermarkFenceTimeoutError for the publication', async () => {
    const { dataSource } = fakeDataSource({ pendingLooks: Number.MAX_SAFE_INTEGER });
    const metrics = new MetricsRegistry();

    const error = await handlerOn(dataSource, metrics)
      .execute()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(WatermarkFenceTimeoutError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { step: 'publication', timeoutMs: 200 } });
    expect(await fenceOutcomes(metrics)).toEqual({ timeout: 1 });
  });

  it('given writes holding the lock past the lock timeout, when fenced, then WatermarkFenceTimeoutError for them', async () => {
    const lockTimeout = Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
    const { dataSource, statements } = fakeDataSource({ lockError: lockTimeout });

    await expect(handlerOn(dataSource).execute()).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      details: { step: 'writes', timeoutMs: 250 },
    });
    expect(statements.some(({ sql }) => sql.includes('watermark_fence'))).toBe(false);
  });

  it('given another database failure, when fenced, then it is thrown as it is and counted as an error', async () => {
    const { dataSource } = fakeDataSource({ lockError: new Error('connection lost') });
    const metrics = new MetricsRegistry();

    await expect(handlerOn(dataSource, metrics).execute()).rejects.toThrow('connection lost');
    expect(await fenceOutcomes(metrics)).toEqual({ error: 1 });
  });

  it('given a fence table without its row, when fenced, then it fails instead of handing out a watermark', async () => {
    const { dataSource } = fakeDataSource({ fence: [] });

    await expect(handlerOn(dataSource).execute()).rejects.toThrow(/watermark_fence has no row/);
  });
});
