import { parseRetryAfter } from './retry-after';

const now = Date.parse('2024-03-01T10:00:00Z');
/** The cap the tests pass: the webhook dispatcher's, 24 hours. */
const MAX_RETRY_AFTER_MS = 86_400_000;

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['1', 1000],
    ['120', 120_000],
    [' 5 ', 5000],
    ['\t30\n', 30_000],
    ['007', 7000],
    ['86399', 86_399_000],
    ['86400', MAX_RETRY_AFTER_MS],
    ['86401', MAX_RETRY_AFTER_MS],
    ['00000000120', 120_000],
    ['12345678901234567890', MAX_RETRY_AFTER_MS],
    ['9999999999', MAX_RETRY_AFTER_MS],
  ])('given the delay-seconds %j, when parsed, then the wait is %i ms', (value, waitMs) => {
    expect(parseRetryAfter(value, now, MAX_RETRY_AFTER_MS)).toBe(waitMs);
  });

  it.each([
    ['Fri, 01 Mar 2024 10:02:00 GMT', 120_000],
    ['  Fri, 01 Mar 2024 10:02:00 GMT  ', 120_000],
    ['Fri, 01 Mar 2024 10:00:01 GMT', 1000],
    ['Fri, 01 Mar 2024 10:00:00 GMT', 0],
    ['Fri, 01 Mar 2024 09:59:59 GMT', 0],
    ['Sun, 06 Nov 1994 08:49:37 GMT', 0],
    ['Sat, 02 Mar 2024 09:59:59 GMT', 86_399_000],
    ['Sat, 02 Mar 2024 10:00:00 GMT', MAX_RETRY_AFTER_MS],
    ['Sat, 02 Mar 2024 10:00:01 GMT', MAX_RETRY_AFTER_MS],
    ['Wed, 01 Jan 2031 00:00:00 GMT', MAX_RETRY_AFTER_MS],
  ])('given the HTTP date %j, when parsed, then the wait is %i ms', (value, waitMs) => {
    expect(parseRetryAfter(value, now, MAX_RETRY_AFTER_MS)).toBe(waitMs);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['a word', 'soon'],
    ['negative', '-1'],
    ['signed', '+5'],
    ['decimal', '1.5'],
    ['exponent', '1e3'],
    ['hexadecimal', '0x10'],
    ['with a unit', '5s'],
    ['two numbers', '5 5'],
    ['RFC 850', 'Friday, 01-Mar-24 10:02:00 GMT'],
    ['asctime', 'Fri Mar  1 10:02:00 2024'],
    ['ISO 8601', '2024-03-01T10:02:00Z'],
    ['ISO 8601 date', '2024-03-01'],
    ['no time zone', 'Fri, 01 Mar 2024 10:02:00'],
    ['UTC', 'Fri, 01 Mar 2024 10:02:00 UTC'],
    ['numeric offset', 'Fri, 01 Mar 2024 10:02:00 +0000'],
    ['one-digit day', 'Fri, 1 Mar 2024 10:02:00 GMT'],
    ['one-digit hour', 'Fri, 01 Mar 2024 9:02:00 GMT'],
    ['two-digit year', 'Fri, 01 Mar 24 10:02:00 GMT'],
    ['no seconds', 'Fri, 01 Mar 2024 10:02 GMT'],
    ['lower case', 'fri, 01 mar 2024 10:02:00 gmt'],
    ['full weekday', 'Friday, 01 Mar 2024 10:02:00 GMT'],
    ['no comma', 'Fri 01 Mar 2024 10:02:00 GMT'],
    ['text before', 'at Fri, 01 Mar 2024 10:02:00 GMT'],
    ['text after', 'Fri, 01 Mar 2024 10:02:00 GMT later'],
    ['a comment after', 'Fri, 01 Mar 2024 10:02:00 GMT (UTC)'],
    ['an offset after GMT', 'Fri, 01 Mar 2024 11:02:00 GMT+0100'],
    ['an impossible day', 'Fri, 32 Mar 2024 10:02:00 GMT'],
    ['an impossible hour', 'Fri, 01 Mar 2024 25:02:00 GMT'],
    ['an unknown month', 'Fri, 01 Xyz 2024 10:02:00 GMT'],
  ])('given a %s value (%j), when parsed, then it is undefined', (_case, value) => {
    expect(parseRetryAfter(value, now, MAX_RETRY_AFTER_MS)).toBeUndefined();
  });
});
