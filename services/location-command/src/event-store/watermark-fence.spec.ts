import type { DataSource } from 'typeorm';
import { FencedWriteError } from './event-store.errors';
import { scriptedManager } from './testing/test-doubles';
import {
  assertAfterFence,
  LOCK_EXCLUSIVE_FOR_FENCE,
  LOCK_SHARED_FOR_WRITE,
  watermarkFenceLockKey,
} from './watermark-fence';

describe('watermark fence lock', () => {
  it('is one key per schema, shared by writers and exclusive for a fence', () => {
    expect(watermarkFenceLockKey({ options: { schema: 'location_command' } } as unknown as DataSource)).toBe(
      'watermark-fence:location_command',
    );
    expect(watermarkFenceLockKey({ options: {} } as unknown as DataSource)).toBe('watermark-fence:public');
    expect(LOCK_SHARED_FOR_WRITE).toMatch(/^SELECT pg_advisory_xact_lock_shared\((\d+), hashtext\(\$1\)\)$/);
    expect(LOCK_EXCLUSIVE_FOR_FENCE).toBe(LOCK_SHARED_FOR_WRITE.replace('_shared', ''));
  });
});

describe('assertAfterFence', () => {
  it('given a time after the fence, when checked, then it resolves after one query with the time', async () => {
    const { manager, queries } = scriptedManager([{ open: true, fenced_at: new Date(0) }]);

    await assertAfterFence(manager, '2024-01-15T10:00:00.000Z');

    expect(queries).toEqual([
      {
        sql: 'SELECT $1::timestamptz > fenced_at AS open, fenced_at FROM watermark_fence',
        parameters: ['2024-01-15T10:00:00.000Z'],
      },
    ]);
  });

  it('given a time at or before the fence, when checked, then FencedWriteError with both times', async () => {
    const fencedAt = new Date('2024-01-15T10:00:00.000Z');
    const { manager } = scriptedManager([{ open: false, fenced_at: fencedAt }]);

    const error = await assertAfterFence(manager, '2024-01-15T10:00:00.000Z').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(FencedWriteError);
    expect(error).toMatchObject({ timestamp: '2024-01-15T10:00:00.000Z', fencedAt });
  });

  it('given no fence row, when checked, then it fails rather than letting the write through', async () => {
    const { manager } = scriptedManager([]);

    await expect(assertAfterFence(manager, '2024-01-15T10:00:00.000Z')).rejects.toThrow(/watermark_fence has no row/);
  });
});
