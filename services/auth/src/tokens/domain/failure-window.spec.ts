import {
  knownSourcesSince,
  retryAfterSeconds,
  sourceOf,
  throttleSubjects,
  type ThrottlePolicy,
} from './failure-window';

const policy: ThrottlePolicy = { clientLimit: 3, sourceLimit: 20, windowSeconds: 60 };
const at = (seconds: number) => new Date(Date.UTC(2025, 0, 1, 12, 0, seconds));
const client = { key: 'client:c', limit: 3, onSuccess: 'clear' } as const;

describe('retryAfterSeconds', () => {
  const counter = (failures: number, pending: number, opened = at(0)) => ({ windowStart: opened, failures, pending });

  it('given failures and attempts under way within the limit, the attempt begun, then it may go on', () => {
    expect(retryAfterSeconds(client, counter(0, 1), at(10), 60)).toBeNull();
    expect(retryAfterSeconds(client, counter(2, 1), at(10), 60)).toBeNull();
    expect(retryAfterSeconds(client, counter(0, 3), at(10), 60)).toBeNull();
  });

  it('given the limit of failures reached, when checked within the window, then the rest of it, rounded up', () => {
    expect(retryAfterSeconds(client, counter(3, 1), new Date(at(10).getTime() + 500), 60)).toBe(50);
    expect(retryAfterSeconds(client, counter(9, 1), at(59), 60)).toBe(1);
  });

  it('given the limit of failures reached, when checked after the window, then it no longer counts', () => {
    expect(retryAfterSeconds(client, counter(9, 1), new Date(at(0).getTime() + 60_000), 60)).toBeNull();
  });

  it('given more attempts under way than failures are left, then a second: the time one check takes', () => {
    expect(retryAfterSeconds(client, counter(0, 4), at(10), 60)).toBe(1);
    expect(retryAfterSeconds(client, counter(2, 2), at(10), 60)).toBe(1);
  });
});

describe('knownSourcesSince', () => {
  it('is the given number of days before now', () => {
    expect(knownSourcesSince(at(0), 30)).toEqual(new Date(Date.UTC(2024, 11, 2, 12, 0, 0)));
  });
});

describe('throttleSubjects', () => {
  it('charges an attempt from a source the client has used before to that pair alone', () => {
    expect(throttleSubjects('c', '203.0.113.7', true, policy)).toEqual([
      { key: 'pair:c:203.0.113.7', limit: 3, onSuccess: 'clear' },
    ]);
  });

  it('charges any other attempt to its source and to its client id, each with its own limit', () => {
    expect(throttleSubjects('c', '203.0.113.7', false, policy)).toEqual([
      { key: 'source:203.0.113.7', limit: 20, onSuccess: 'keep' },
      { key: 'client:c', limit: 3, onSuccess: 'clear' },
    ]);
  });
});

describe('sourceOf', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:85a3:1:8a2e:370:7334:1', '2001:db8:85a3:1::/64'],
    ['2001:db8:85a3:1:ffff::2', '2001:db8:85a3:1::/64'],
    ['2001:0DB8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8:0:0::/64'],
    ['fe80::1', 'fe80:0:0:0::/64'],
  ])('counts %s as %s', (ip, counted) => {
    expect(sourceOf(ip)).toBe(counted);
  });
});
