import { isIPv4 } from 'node:net';

/** Failed client authentications counted against one subject (a source, a client id, or both) in a fixed window. */
export interface FailureCounter {
  windowStart: Date;
  /** Attempts counted in the window, the one being decided included. */
  failures: number;
}

/** The limits of the token endpoint; every counter shares the window. */
export interface ThrottlePolicy {
  /** Failures per client id (from sources it has never authenticated from), and per client id and known source. */
  clientLimit: number;
  /** Failures per source address, whatever the client ids. */
  sourceLimit: number;
  windowSeconds: number;
}

/** One counter an attempt is charged to, and the most failures it may hold before attempts are refused. */
export interface ThrottleSubject {
  key: string;
  limit: number;
}

/**
 * Where a token request came from, as throttling counts it: an IPv4 address (an IPv4-mapped IPv6 address as the IPv4
 * one), or the /64 of an IPv6 address, since one host commonly holds a whole /64 and changes addresses within it.
 */
export function sourceOf(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (isIPv4(ip)) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * The counters an attempt for `clientId` from `source` is charged to. From a source the client has authenticated
 * from before (`knownSource`), only that pair's: failures elsewhere, by anyone, never hold the rightful client up
 * there. From any other source, the source's (whoever it guesses for) and the client id's (wherever the guesses come
 * from), so neither one address nor many slow guessing down less.
 */
export function throttleSubjects(
  clientId: string,
  source: string,
  knownSource: boolean,
  policy: ThrottlePolicy,
): ThrottleSubject[] {
  if (knownSource) return [{ key: `pair:${clientId}:${source}`, limit: policy.clientLimit }];
  return [
    { key: `source:${source}`, limit: policy.sourceLimit },
    { key: `client:${clientId}`, limit: policy.clientLimit },
  ];
}

/**
 * Seconds until an attempt may be tried again, given its subjects' counters with the attempt counted (so the
 * limit-th failure still gets its check and the next one waits), or null when every counter is within its limit.
 * A window that has ended no longer counts.
 */
export function retryAfterSeconds(
  counted: readonly { subject: ThrottleSubject; counter: FailureCounter }[],
  now: Date,
  windowSeconds: number,
): number | null {
  let wait: number | null = null;
  for (const { subject, counter } of counted) {
    if (counter.failures <= subject.limit) continue;
    const remainingMs = counter.windowStart.getTime() + windowSeconds * 1000 - now.getTime();
    if (remainingMs > 0) wait = Math.max(wait ?? 0, Math.ceil(remainingMs / 1000));
  }
  return wait;
}
