import { retryAfterSeconds } from './failure-window';

const policy = { limit: 3, windowSeconds: 60 };
const at = (seconds: number) => new Date(Date.UTC(2025, 0, 1, 12, 0, seconds));

describe('retryAfterSeconds', () => {
  it('given no failures, when checked, then the client may try', () => {
    expect(retryAfterSeconds(null, at(0), policy)).toBeNull();
  });

  it('given fewer failures than the limit, when checked, then the client may try', () => {
    expect(retryAfterSeconds({ windowStart: at(0), failures: 2 }, at(10), policy)).toBeNull();
  });

  it('given the limit reached, when checked within the window, then the rest of the window, rounded up', () => {
    expect(retryAfterSeconds({ windowStart: at(0), failures: 3 }, new Date(at(10).getTime() + 500), policy)).toBe(50);
  });

  it('given the limit reached, when checked after the window, then the client may try again', () => {
    expect(
      retryAfterSeconds({ windowStart: at(0), failures: 9 }, new Date(at(0).getTime() + 60_000), policy),
    ).toBeNull();
  });
});
