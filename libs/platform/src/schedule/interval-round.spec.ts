import { IntervalRound } from './interval-round';

/** A round that handles what `batches` says, one batch per step, and can be held open. */
class CountingRound extends IntervalRound {
  rounds = 0;
  steps: number[] = [];
  release?: () => void;

  constructor(
    private readonly batches: number[],
    private readonly hold = false,
  ) {
    super(60_000);
  }

  protected async round(): Promise<number> {
    this.rounds += 1;
    if (this.hold) await new Promise<void>((resolve) => (this.release = resolve));
    const queue = [...this.batches];
    return this.inBatches(10, async (limit) => {
      this.steps.push(limit);
      return queue.shift() ?? 0;
    });
  }
}

describe('IntervalRound', () => {
  it('given a round running, when executed again, then it joins that round rather than starting another', async () => {
    const round = new CountingRound([3], true);
    const first = round.execute();
    const second = round.execute();
    expect(second).toBe(first);
    await new Promise((resolve) => setImmediate(resolve));
    round.release!();
    expect(await Promise.all([first, second])).toEqual([3, 3]);
    expect(round.rounds).toBe(1);
    // Once it ended, the next execute is a new round.
    const third = round.execute();
    await new Promise((resolve) => setImmediate(resolve));
    round.release!();
    await third;
    expect(round.rounds).toBe(2);
  });

  it.each([
    [[3], [10], 3],
    [[10, 10, 4], [10, 10, 10], 24],
    [[10, 0], [10, 10], 10],
    [[], [10], 0],
  ])(
    'given steps handling %j, when run in batches of 10, then it steps %j times and totals %d',
    async (batches, steps, total) => {
      const round = new CountingRound(batches);
      expect(await round.execute()).toBe(total);
      expect(round.steps).toEqual(steps);
    },
  );

  it('given a failing round, when executed, then it rejects and the next round runs anew', async () => {
    const round = new CountingRound([]);
    jest.spyOn(round as unknown as { round: () => Promise<number> }, 'round').mockRejectedValueOnce(new Error('down'));
    await expect(round.execute()).rejects.toThrow('down');
    expect(await round.execute()).toBe(0);
  });

  it('given bootstrap then shutdown, when the timer would fire, then no round runs after shutdown', () => {
    jest.useFakeTimers();
    try {
      const round = new CountingRound([]);
      round.onApplicationBootstrap();
      jest.advanceTimersByTime(60_000);
      expect(round.rounds).toBe(1);
      round.onApplicationShutdown();
      jest.advanceTimersByTime(180_000);
      expect(round.rounds).toBe(1);
    } finally {
      jest.useRealTimers();
    }
  });
});
