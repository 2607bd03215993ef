const DELAY_SECONDS = /^\d+$/;
/** IMF-fixdate, the form RFC 9110 requires senders to use (`Sun, 06 Nov 1994 08:49:37 GMT`). */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * The wait a Retry-After value asks for, in ms from `nowMs`: delay-seconds or an HTTP date (a date in the past is
 * 0), capped at `maxMs`; undefined for a value that is neither. Read alike by the webhook dispatcher (an RSP's reply)
 * and by lx-sync (the API's).
 */
export function parseRetryAfter(value: string, nowMs: number, maxMs: number): number | undefined {
  const text = value.trim();
  let waitMs: number;
  if (DELAY_SECONDS.test(text)) {
    waitMs = Number(text) * 1000;
  } else if (HTTP_DATE.test(text)) {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    waitMs = Math.max(0, at - nowMs);
  } else {
    return undefined;
  }
  return Math.min(waitMs, maxMs);
}
