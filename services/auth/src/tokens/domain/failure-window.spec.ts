import { retryAfterSeconds, sourceOf, throttleSubjects, type ThrottlePolicy } from './failure-window';

const policy: ThrottlePolicy = { clientLimit: 3, sourceLimit: 20, windowSeconds: 60 };
const at = (seconds: number) => new Date(Date.UTC(2025, 0, 1, 12, 0, seconds));
const client = { key: 'client:c', limit: 3 };
const source = { key: 'source:s', limit: 20 };

describe('retryAfterSeconds', () => {
  it('given counters within their limits, the attempt counted, when checked, then it may go on', () => {
    expect(retryAfterSeconds([], at(0), 60)).toBeNull();
    expect(
      retryAfterSeconds([{ subject: client, counter: { windowStart: at(0), failures: 3 } }], at(10), 60),
    ).toBeNull();
  });

  it('given a counter past its limit, when checked within the window, then the rest of the window, rounded up', () => {
    const counted = [
      { subject: source, counter: { windowStart: at(0), failures: 4 } },
      { subject: client, counter: { windowStart: at(0), failures: 4 } },
    ];
    expect(retryAfterSeconds(counted, new Date(at(10).getTime() + 500), 60)).toBe(50);
  });

  it('given several counters past their limits, then the longest wait of them', () => {
    const counted = [
      { subject: source, counter: { windowStart: at(20), failures: 21 } },
      { subject: client, counter: { windowStart: at(0), failures: 4 } },
    ];
    expect(retryAfterSeconds(counted, at(30), 60)).toBe(50);
  });

  it('given a counter past its limit, when checked after its window, then it no longer counts', () => {
    const counted = [{ subject: client, counter: { windowStart: at(0), failures: 9 } }];
    expect(retryAfterSeconds(counted, new Date(at(0).getTime() + 60_000), 60)).toBeNull();
  });
});

describe('throttleSubjects', () => {
  it('charges an attempt from a source the client has used before to that pair alone', () => {
    expect(throttleSubjects('c', '203.0.113.7', true, policy)).toEqual([{ key: 'pair:c:203.0.113.7', limit: 3 }]);
  });

  it('charges any other attempt to its source and to its client id, each with its own limit', () => {
    expect(throttleSubjects('c', '203.0.113.7', false, policy)).toEqual([
      { key: 'source:203.0.113.7', limit: 20 },
      { key: 'client:c', limit: 3 },
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
  ])('counts %s as %s', (ip, counted) => {
    expect(sourceOf(ip)).toBe(counted);
  });
});
