import {
  type AttemptResult,
  DEFAULT_RETRY_SCHEDULE,
  judgeAttempt,
  MAX_RETRY_AFTER_MS,
  nextAttemptDelay,
  parseDuration,
  type RetrySchedule,
  type TransportFailure,
  type Verdict,
} from './delivery-policy';

const now = Date.parse('2024-03-01T10:00:00Z');

const reply = (status: number, retryAfter?: string): AttemptResult =>
  retryAfter === undefined ? { kind: 'reply', status } : { kind: 'reply', status, retryAfter };

describe('judgeAttempt', () => {
  it.each([200, 201, 202, 204, 299])('given a %i reply, when judged, then it is delivered', (status) => {
    expect(judgeAttempt(reply(status), now)).toStrictEqual({ type: 'delivered' });
  });

  it('given a 400 reply, when judged, then the delivery fails as rejected', () => {
    expect(judgeAttempt(reply(400), now)).toStrictEqual({ type: 'failed', reason: 'rejected' });
  });

  it('given a 410 reply, when judged, then the delivery fails as gone', () => {
    expect(judgeAttempt(reply(410), now)).toStrictEqual({ type: 'failed', reason: 'gone' });
  });

  it.each([
    [401, 'unauthorized'],
    [429, 'rate-limited'],
    [500, 'server-error'],
    [502, 'server-error'],
    [503, 'server-error'],
    [599, 'server-error'],
    [600, 'server-error'],
    [300, 'redirect'],
    [301, 'redirect'],
    [308, 'redirect'],
    [399, 'redirect'],
    [100, 'client-error'],
    [199, 'client-error'],
    [402, 'client-error'],
    [403, 'client-error'],
    [404, 'client-error'],
    [409, 'client-error'],
    [411, 'client-error'],
    [428, 'client-error'],
    [430, 'client-error'],
    [499, 'client-error'],
  ])('given a %i reply, when judged, then it is retried as %s', (status, reason) => {
    expect(judgeAttempt(reply(status), now)).toStrictEqual({ type: 'retry', reason });
  });

  it.each<[TransportFailure, Verdict]>([
    ['timeout', { type: 'retry', reason: 'timeout' }],
    ['connection', { type: 'retry', reason: 'connection' }],
    ['tls', { type: 'retry', reason: 'tls' }],
    ['address-not-allowed', { type: 'failed', reason: 'address-not-allowed' }],
  ])('given a %s transport failure, when judged, then the verdict is %j', (failure, verdict) => {
    expect(judgeAttempt({ kind: 'failure', failure }, now)).toStrictEqual(verdict);
  });

  it.each([
    [429, '120', 'rate-limited', 120_000],
    [503, 'Fri, 01 Mar 2024 10:00:30 GMT', 'server-error', 30_000],
    [401, '0', 'unauthorized', 0],
    [301, '7', 'redirect', 7000],
    [404, '86401', 'client-error', MAX_RETRY_AFTER_MS],
  ])(
    'given a %i reply with Retry-After %j, when judged, then it is retried as %s not before %i ms',
    (status, retryAfter, reason, notBeforeMs) => {
      expect(judgeAttempt(reply(status, retryAfter), now)).toStrictEqual({ type: 'retry', reason, notBeforeMs });
    },
  );

  it('given a Retry-After date, when judged at another time, then the lower bound counts from that time', () => {
    const later = now + 10_000;
    expect(judgeAttempt(reply(503, 'Fri, 01 Mar 2024 10:00:30 GMT'), later)).toStrictEqual({
      type: 'retry',
      reason: 'server-error',
      notBeforeMs: 20_000,
    });
  });

  it.each(['soon', '', '-1', '1.5'])(
    'given a 429 reply with the unusable Retry-After %j, when judged, then it is retried without a lower bound',
    (retryAfter) => {
      expect(judgeAttempt(reply(429, retryAfter), now)).toStrictEqual({ type: 'retry', reason: 'rate-limited' });
    },
  );

  it.each([
    [200, { type: 'delivered' }],
    [400, { type: 'failed', reason: 'rejected' }],
    [410, { type: 'failed', reason: 'gone' }],
  ])('given a %i reply with a Retry-After, when judged, then the Retry-After is ignored', (status, verdict) => {
    expect(judgeAttempt(reply(status, '120'), now)).toStrictEqual(verdict);
  });
});

describe('MAX_RETRY_AFTER_MS', () => {
  it('is 24 hours: a Retry-After beyond is cut to it', () => {
    expect(MAX_RETRY_AFTER_MS).toBe(86_400_000);
    expect(judgeAttempt(reply(503, '9999999999'), now)).toMatchObject({ notBeforeMs: MAX_RETRY_AFTER_MS });
  });
});

describe('DEFAULT_RETRY_SCHEDULE', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, each ±20 %', () => {
    expect(DEFAULT_RETRY_SCHEDULE).toStrictEqual({
      delaysMs: [5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      jitter: 0.2,
    });
  });

  it('makes 8 attempts over about 27.6 hours', () => {
    const { delaysMs } = DEFAULT_RETRY_SCHEDULE;
    expect(delaysMs.length + 1).toBe(8);
    expect(delaysMs.reduce((sum, delay) => sum + delay, 0) / 3_600_000).toBeCloseTo(27.6, 1);
  });
});

describe('nextAttemptDelay', () => {
  const schedule: RetrySchedule = { delaysMs: [1000, 10_000, 60_000], jitter: 0.2 };
  const retry: Extract<Verdict, { type: 'retry' }> = { type: 'retry', reason: 'server-error' };
  const largestDraw = 1 - Number.EPSILON / 2;

  it.each([
    [1, 0, 800],
    [1, 0.25, 900],
    [1, 0.5, 1000],
    [1, 0.75, 1100],
    [1, 0.999_999_9, 1200],
    [1, 1 - Number.EPSILON / 2, 1200],
    [1, 0.123, 849],
    [1, 0.124, 850],
    [2, 0, 8000],
    [2, 0.5, 10_000],
    [2, 0.999_999_9, 12_000],
    [3, 0, 48_000],
    [3, 0.5, 60_000],
    [3, 0.999_999_9, 72_000],
  ])(
    'given attempt %i failed and the draw %d, when scheduled, then the next attempt is in %i ms',
    (attempt, random, delay) => {
      expect(nextAttemptDelay(schedule, attempt, retry, random)).toBe(delay);
    },
  );

  it.each([0, 0.3, 0.5, 0.999_999_9])(
    'given no jitter and the draw %d, when scheduled, then the delay is exact',
    (random) => {
      const exact: RetrySchedule = { delaysMs: [1000, 10_000], jitter: 0 };
      expect(nextAttemptDelay(exact, 1, retry, random)).toBe(1000);
      expect(nextAttemptDelay(exact, 2, retry, random)).toBe(10_000);
    },
  );

  it.each([4, 5, 0, -1, 1.5])('given attempt %d, when scheduled, then the schedule is used up', (attempt) => {
    expect(nextAttemptDelay(schedule, attempt, retry, 0.5)).toBeUndefined();
  });

  it('given Retry-After, when scheduled after the last attempt, then the schedule is still used up', () => {
    expect(nextAttemptDelay(schedule, 4, { ...retry, notBeforeMs: 5000 }, 0.5)).toBeUndefined();
  });

  it.each([
    [0.5, 5000, 5000],
    [0, 801, 801],
    [0, 800, 800],
    [0, 799, 800],
    [0.999_999_9, 1199, 1200],
    [0.5, 0, 1000],
    [0.5, MAX_RETRY_AFTER_MS, MAX_RETRY_AFTER_MS],
  ])(
    'given the draw %d and Retry-After of %i ms, when scheduled, then the delay is %i ms',
    (random, notBeforeMs, delay) => {
      expect(nextAttemptDelay(schedule, 1, { ...retry, notBeforeMs }, random)).toBe(delay);
    },
  );

  it('given the default schedule, when every attempt fails, then 7 delays within ±20 % follow and then none', () => {
    DEFAULT_RETRY_SCHEDULE.delaysMs.forEach((base, index) => {
      expect(nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, index + 1, retry, 0)).toBe(Math.round(base * 0.8));
      expect(nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, index + 1, retry, 0.5)).toBe(base);
      expect(nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, index + 1, retry, largestDraw)).toBe(Math.round(base * 1.2));
    });
    expect(nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, 8, retry, 0.5)).toBeUndefined();
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['0ms', 0],
    ['5s', 5000],
    ['0s', 0],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['7d', 604_800_000],
    ['15s', 15_000],
    ['120s', 120_000],
    ['1.5s', 1500],
    ['0.5m', 30_000],
    ['1.25h', 4_500_000],
    ['0.5d', 43_200_000],
    ['2.5ms', 3],
    ['1.4ms', 1],
    ['0.0004s', 0],
    ['1.0005s', 1001],
    [' 5s ', 5000],
    ['\t10m\n', 600_000],
  ])('given %j, when parsed, then it is %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    '',
    '   ',
    's',
    'ms',
    '5',
    '5 s',
    '5S',
    '5Ms',
    '5sec',
    '5ss',
    '5w',
    '5y',
    '-5s',
    '+5s',
    '.5s',
    '5.s',
    '1.2.3s',
    '1,5s',
    '1e3ms',
    's5',
    '5s5',
    'x5s',
    '5sx',
    '5s,5m',
  ])('given %j, when parsed, then it is undefined', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});
