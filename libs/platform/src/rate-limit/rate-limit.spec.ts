import { decide, DEFAULT_RATE_LIMITS, parseRateLimits, rateLimitHeaders, windowStartOf } from './rate-limit';

const policy = { quota: 10, windowSeconds: 10 };
/** A moment `seconds` into the window that starts at 1,000,000 s. */
const at = (seconds: number) => (1_000_000 + seconds) * 1000;

describe('parseRateLimits', () => {
  it('given nothing, when parsed, then every kind has its default', () => {
    expect(parseRateLimits('')).toEqual({ ok: true, value: DEFAULT_RATE_LIMITS });
    expect(DEFAULT_RATE_LIMITS).toEqual({
      RSP: { quota: 1_000, windowSeconds: 10 },
      OPERATOR: { quota: 1_000, windowSeconds: 10 },
      ADMIN: { quota: 1_000, windowSeconds: 10 },
      SERVICE: null,
    });
  });

  it('given entries, when parsed, then the kinds named take them and the others keep their defaults', () => {
    expect(parseRateLimits(' RSP=50/60 , ADMIN=off,SERVICE=7/1 ')).toEqual({
      ok: true,
      value: {
        RSP: { quota: 50, windowSeconds: 60 },
        OPERATOR: { quota: 1_000, windowSeconds: 10 },
        ADMIN: null,
        SERVICE: { quota: 7, windowSeconds: 1 },
      },
    });
  });

  it.each([
    'RSP',
    'RSP=',
    'RSP=10',
    'RSP=0/10',
    'RSP=10/0',
    'RSP=-1/10',
    'RSP=1.5/10',
    'rsp=10/10',
    'USER=10/10',
    'RSP=10/10/10',
    '-RSP=10/10',
  ])('given %s, when parsed, then it is refused naming the entry', (entry) => {
    const parsed = parseRateLimits(`OPERATOR=5/5,${entry}`);
    expect(parsed).toEqual({ ok: false, problems: [expect.stringContaining(`"${entry}" is not KIND=quota/seconds`)] });
  });

  it('given several wrong entries, when parsed, then each is named', () => {
    expect(parseRateLimits('A=1/1,RSP=1/1,B=off')).toEqual({
      ok: false,
      problems: [
        '"A=1/1" is not KIND=quota/seconds or KIND=off with KIND one of RSP, OPERATOR, ADMIN, SERVICE',
        '"B=off" is not KIND=quota/seconds or KIND=off with KIND one of RSP, OPERATOR, ADMIN, SERVICE',
      ],
    });
  });
});

describe('windowStartOf', () => {
  it('given a moment, when its window is asked, then it is the last multiple of the window length', () => {
    expect(windowStartOf(policy, at(0))).toBe(1_000_000);
    expect(windowStartOf(policy, at(9.999))).toBe(1_000_000);
    expect(windowStartOf(policy, at(10))).toBe(1_000_010);
    expect(windowStartOf({ quota: 1, windowSeconds: 60 }, 125_000)).toBe(120);
  });
});

describe('decide', () => {
  it('given an unused quota, when a request comes, then it is admitted with the rest of the quota left', () => {
    expect(decide(policy, { previous: 0, current: 0 }, at(2.5))).toEqual({
      admitted: true,
      remaining: 9,
      resetSeconds: 8,
    });
  });

  it('given the quota spent but one in this window, when a request comes, then it is admitted with nothing left until the next one would be', () => {
    // After it, 10 in this window: room again a second into the next (10 × 0.9 + 1 ≤ 10), 11 s from now.
    expect(decide(policy, { previous: 0, current: 9 }, at(0))).toEqual({
      admitted: true,
      remaining: 0,
      resetSeconds: 11,
    });
  });

  it('given the quota spent in this window, when a request comes, then it is refused until the sliding window has room', () => {
    // Next window, 10 × (1 − e) + 1 ≤ 10 once e ≥ 0.1: one second into it, 8.5 s from now.
    expect(decide(policy, { previous: 0, current: 10 }, at(2.5))).toEqual({
      admitted: false,
      remaining: 0,
      resetSeconds: 9,
      retryAfterSeconds: 9,
    });
  });

  it('given the previous window spent, when a request comes early, then it counts by the share still covered', () => {
    // 30 % into the window: 10 × 0.7 = 7 used, 3 left (2 after this one).
    expect(decide(policy, { previous: 10, current: 0 }, at(3))).toMatchObject({ admitted: true, remaining: 2 });
    // 5 more in this window: 7 + 5 > 10 − 1; room once 10 × (1 − e) ≤ 4, at e = 0.6: 3 s from now.
    expect(decide(policy, { previous: 10, current: 5 }, at(3))).toEqual({
      admitted: false,
      remaining: 0,
      resetSeconds: 3,
      retryAfterSeconds: 3,
    });
  });

  it('given this window spent and some of the previous one still counted, when refused, then room comes in the next window', () => {
    // Next window: 10 × (1 − e) + 1 ≤ 10 once e ≥ 0.1, at 11 s: 9 s from now (the previous window's 5 are gone by then).
    expect(decide(policy, { previous: 5, current: 10 }, at(2))).toMatchObject({
      admitted: false,
      retryAfterSeconds: 9,
    });
  });

  it('given a burst at the end of one window, when the next begins, then it cannot spend a second quota at once', () => {
    expect(decide(policy, { previous: 10, current: 0 }, at(0.5)).admitted).toBe(false);
    expect(decide(policy, { previous: 10, current: 0 }, at(1)).admitted).toBe(true);
  });

  it('given a quota of one, when it is spent, then the next request waits for the end of the next window', () => {
    expect(decide({ quota: 1, windowSeconds: 10 }, { previous: 0, current: 1 }, at(4))).toMatchObject({
      admitted: false,
      retryAfterSeconds: 16,
    });
  });

  it('given a refusal a moment before room, when decided, then Retry-After is at least a second', () => {
    expect(decide(policy, { previous: 10, current: 0 }, at(0.999)).retryAfterSeconds).toBe(1);
  });
});

describe('rateLimitHeaders', () => {
  it('given a decision, when written, then the fields name the policy, its quota and window, what is left and when', () => {
    expect(rateLimitHeaders('rsp', policy, { admitted: true, remaining: 4, resetSeconds: 3 })).toEqual({
      'ratelimit-policy': '"rsp";q=10;w=10',
      ratelimit: '"rsp";r=4;t=3',
    });
  });
});
