import type { Pool } from 'pg';
import type { EventBus, PartitionBounds } from '@lx/messaging';
import { SnapshotCatchUpError } from '../location.errors';
import { partitionsBehind, ProjectionCatchUp } from './projection-catch-up';

const TOPIC = 'location.events.v1';
const bounds = (partition: number, low: string, high: string): PartitionBounds => ({
  topic: TOPIC,
  partition,
  low,
  high,
});

describe('partitionsBehind', () => {
  it('given stored next offsets at or past the end offsets, when compared, then no partition is behind', () => {
    const ends = [bounds(0, '0', '10'), bounds(1, '0', '7')];
    expect(
      partitionsBehind(
        ends,
        new Map([
          [0, '10'],
          [1, '8'],
        ]),
      ),
    ).toEqual([]);
  });

  it('given a stored next offset below the end, when compared, then that partition is behind with both offsets', () => {
    // The stored value is the next offset to apply: 9 means the message at offset 9, the last one, is not applied.
    const ends = [bounds(0, '0', '10'), bounds(1, '0', '7')];
    expect(
      partitionsBehind(
        ends,
        new Map([
          [0, '9'],
          [1, '7'],
        ]),
      ),
    ).toEqual([{ partition: 0, applied: '9', end: '10' }]);
  });

  it.each([
    ['an empty partition', bounds(0, '0', '0'), []],
    ['a partition emptied by retention', bounds(0, '25', '25'), []],
    ['a partition with messages', bounds(0, '25', '26'), [{ partition: 0, applied: null, end: '26' }]],
  ])('given no stored offset and %s, when compared, then it is behind only if it holds messages', (_n, end, behind) => {
    expect(partitionsBehind([end], new Map())).toEqual(behind);
  });

  it('given offsets beyond 2^53, when compared, then they are compared exactly', () => {
    expect(partitionsBehind([bounds(0, '0', '9007199254740993')], new Map([[0, '9007199254740992']]))).toHaveLength(1);
  });
});

describe('ProjectionCatchUp', () => {
  /** A pool whose consumer_offsets answer the next of `answers` at each look (then the last again). */
  function fakePool(...answers: { topic: string; partition: number; next_offset: string }[][]) {
    const looks: unknown[][] = [];
    const pool = {
      query: (_sql: string, values: unknown[]) => {
        looks.push(values);
        const rows = answers.length > 1 ? answers.shift()! : answers[0]!;
        return Promise.resolve({ rows });
      },
    } as unknown as Pool;
    return { pool, looks };
  }

  const bus = (ends: PartitionBounds[] | Error) =>
    ({
      partitionBounds: () => (ends instanceof Error ? Promise.reject(ends) : Promise.resolve(ends)),
    }) as unknown as EventBus;
  const options = { fetchRows: 10, catchUpTimeoutMs: 100, projectionGroupId: 'lq', catchUpPollIntervalMs: 1 };
  const row = (partition: number, next: string, topic = TOPIC) => ({ topic, partition, next_offset: next });

  it('given a read model that reaches the ends, when waited for, then it resolves at that look', async () => {
    const { pool, looks } = fakePool([row(0, '3')], [row(0, '4'), row(0, '9', 'other.topic')], [row(0, '5')]);

    await new ProjectionCatchUp(pool, bus([bounds(0, '0', '5')]), options).untilCaughtUp(TOPIC);

    expect(looks).toEqual([['lq'], ['lq'], ['lq']]);
  });

  it('given a read model that stays behind, when waited for, then SnapshotCatchUpError naming the partitions', async () => {
    const { pool } = fakePool([row(0, '3'), row(1, '9', 'other.topic')]);

    const error = await new ProjectionCatchUp(pool, bus([bounds(0, '0', '5'), bounds(1, '0', '2')]), options)
      .untilCaughtUp(TOPIC)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(SnapshotCatchUpError);
    expect(error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: `the read model did not catch up with ${TOPIC} within 100 ms; retry later`,
      details: {
        topic: TOPIC,
        timeoutMs: 100,
        behind: [
          { partition: 0, applied: '3', end: '5' },
          { partition: 1, applied: null, end: '2' },
        ],
      },
    });
  });

  it('given an event log that does not answer, when waited for, then SnapshotCatchUpError at once', async () => {
    const { pool, looks } = fakePool([]);

    await expect(
      new ProjectionCatchUp(pool, bus(new Error('broker down')), options).untilCaughtUp(TOPIC),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { topic: TOPIC } });
    expect(looks).toEqual([]);
  });
});
