import { isIPv4 } from 'node:net';

/** Failed client authentications counted against one subject (a source, a client id, or both) in a fixed window. */
export interface FailureCounter {
  windowStart: Date;
  failures: number;
  /** Attempts whose secret is being checked right now, the one being decided included. */
  pending: number;
}

/** The limits of the token endpoint; every counter shares the window. */
export interface ThrottlePolicy {
  /** Failures per client id (from sources it has not authenticated from), and per client id and known source. */
  clientLimit: number;
  /** Failures per source address, whatever the client ids. */
  sourceLimit: number;
  windowSeconds: number;
}

/**
 * One counter an attempt is charged to, the most failures it may hold, and what a right secret does to it: `clear`
 * (the client's or the pair's: whoever holds the secret has shown it) or `keep` (the source's: one right secret
 * there says nothing about the other attempts from it).
 */
export interface ThrottleSubject {
  key: string;
  limit: number;
  onSuccess: 'clear' | 'keep';
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
  if (knownSource) return [{ key: `pair:${clientId}:${source}`, limit: policy.clientLimit, onSuccess: 'clear' }];
  return [
    { key: `source:${source}`, limit: policy.sourceLimit, onSuccess: 'keep' },
    { key: `client:${clientId}`, limit: policy.clientLimit, onSuccess: 'clear' },
  ];
}

/**
 * Seconds until an attempt may be tried again, given its counter with the attempt begun, or null when it may go on.
 * Past the limit of failures: the rest of the window (a window that has ended no longer counts). Within it, but with
 * more attempts under way than failures left (a parallel burst): a second, the time a check takes, so no more checks
 * run than the limit allows and a burst of right secrets is only delayed.
 */
export function retryAfterSeconds(
  subject: ThrottleSubject,
  counter: FailureCounter,
  now: Date,
  windowSeconds: number,
): number | null {
  if (counter.failures >= subject.limit) {
    const remainingMs = counter.windowStart.getTime() + windowSeconds * 1000 - now.getTime();
    return remainingMs > 0 ? Math.ceil(remainingMs / 1000) : null;
  }
  return counter.failures + counter.pending > subject.limit ? 1 : null;
}

/** The date from which a source a client authenticated from is known: `days` before `now`. */
export function knownSourcesSince(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}
