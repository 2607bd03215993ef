import { Bulkhead } from './read-pool';

describe('Bulkhead', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('given free slots, when acquired, then admits at once up to the number of slots', async () => {
    const bulkhead = new Bulkhead(2, 100);
    await expect(bulkhead.acquire()).resolves.toBe(true);
    await expect(bulkhead.acquire()).resolves.toBe(true);
    expect(bulkhead.running).toBe(2);
    expect(bulkhead.queued).toBe(0);
  });

  it('given every slot taken, when one is released within the timeout, then the first waiter gets it', async () => {
    const bulkhead = new Bulkhead(1, 100);
    await bulkhead.acquire();
    const first = bulkhead.acquire();
    const second = bulkhead.acquire();
    expect(bulkhead.queued).toBe(2);
    jest.advanceTimersByTime(99);
    bulkhead.release();
    await expect(first).resolves.toBe(true);
    expect(bulkhead.running).toBe(1);
    expect(bulkhead.queued).toBe(1);
    jest.advanceTimersByTime(1);
    await expect(second).resolves.toBe(false);
    expect(bulkhead.queued).toBe(0);
  });

  it('given a waiter that timed out, when a slot is released, then it goes to the next waiter, not the one gone', async () => {
    const bulkhead = new Bulkhead(1, 100);
    await bulkhead.acquire();
    const late = bulkhead.acquire();
    jest.advanceTimersByTime(50);
    const next = bulkhead.acquire();
    jest.advanceTimersByTime(50);
    await expect(late).resolves.toBe(false);
    bulkhead.release();
    await expect(next).resolves.toBe(true);
    expect(bulkhead.running).toBe(1);
    bulkhead.release();
    expect(bulkhead.running).toBe(0);
    await expect(bulkhead.acquire()).resolves.toBe(true);
  });
});
