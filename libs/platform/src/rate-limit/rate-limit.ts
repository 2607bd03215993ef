import { CLIENT_KINDS, type ClientKind } from '@lx/contracts';

/** A quota of requests per window of seconds. */
export interface RateLimitPolicy {
  quota: number;
  windowSeconds: number;
}

/** The policy of each client kind; null: not limited. */
export type RateLimits = Readonly<Record<ClientKind, RateLimitPolicy | null>>;

/** Every kind that reads the RSP API at 1,000 requests per 10 s; the services' own client is not limited. */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  RSP: { quota: 1_000, windowSeconds: 10 },
  OPERATOR: { quota: 1_000, windowSeconds: 10 },
  ADMIN: { quota: 1_000, windowSeconds: 10 },
  SERVICE: null,
};

const ENTRY = /^([A-Z]+)=(?:off|([1-9][0-9]{0,8})\/([1-9][0-9]{0,5}))$/;

/**
 * Parses `KIND=quota/seconds` (or `KIND=off`) entries, comma-separated, over the defaults: a kind not named keeps its
 * default. Otherwise the problem of every wrong entry.
 */
export function parseRateLimits(text: string): { ok: true; value: RateLimits } | { ok: false; problems: string[] } {
  const limits: Record<ClientKind, RateLimitPolicy | null> = { ...DEFAULT_RATE_LIMITS };
  const problems: string[] = [];
  for (const entry of text.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const wrong = `"${entry}" is not KIND=quota/seconds or KIND=off with KIND one of ${CLIENT_KINDS.join(', ')}`;
    const match = ENTRY.exec(entry);
    if (match === null) {
      problems.push(wrong);
      continue;
    }
    const kind = CLIENT_KINDS.find((known) => known === match[1]);
    if (kind === undefined) {
      problems.push(wrong);
      continue;
    }
    limits[kind] = match[2] === undefined ? null : { quota: Number(match[2]), windowSeconds: Number(match[3]) };
  }
  return problems.length === 0 ? { ok: true, value: limits } : { ok: false, problems };
}

/** The requests a client made in the window under way and in the one before it. */
export interface WindowCounts {
  previous: number;
  current: number;
}

/** What one request gets: admitted or not, and what the RateLimit fields and Retry-After say. */
export interface RateDecision {
  admitted: boolean;
  /** Requests left in the quota after this one (0 when refused). */
  remaining: number;
  /**
   * Whole seconds (at least 1) until the quota is back: with requests left, until the window under way ends; with
   * none, until the next request would be admitted (Retry-After), since a sliding window still counts the requests
   * of the window that just ended.
   */
  resetSeconds: number;
  /** Refused only: whole seconds until a request would be admitted if none were made meanwhile (at least 1). */
  retryAfterSeconds?: number;
}

/** The start of the window that `nowMs` falls in, in whole seconds since the epoch. */
export function windowStartOf(policy: RateLimitPolicy, nowMs: number): number {
  return Math.floor(nowMs / 1000 / policy.windowSeconds) * policy.windowSeconds;
}

/**
 * Decides one request by a sliding window: the requests of the window under way plus those of the previous window,
 * weighted by the share of it the sliding window still covers (a client cannot spend two quotas across a window's
 * edge, as with fixed windows; one counter per window suffices). Admitted while that estimate plus this request stays
 * within the quota.
 */
export function decide(policy: RateLimitPolicy, counts: WindowCounts, nowMs: number): RateDecision {
  const windowMs = policy.windowSeconds * 1000;
  const startMs = windowStartOf(policy, nowMs) * 1000;
  const elapsed = (nowMs - startMs) / windowMs;
  const used = counts.previous * (1 - elapsed) + counts.current;
  if (used + 1 > policy.quota) {
    const retryAfterSeconds = retryAfter(policy, counts, nowMs);
    return { admitted: false, remaining: 0, resetSeconds: retryAfterSeconds, retryAfterSeconds };
  }
  const remaining = Math.floor(policy.quota - used - 1);
  const resetSeconds =
    remaining > 0
      ? Math.max(1, Math.ceil((startMs + windowMs - nowMs) / 1000))
      : retryAfter(policy, { ...counts, current: counts.current + 1 }, nowMs);
  return { admitted: true, remaining, resetSeconds };
}

/**
 * Whole seconds until the estimate leaves room for one request, none being admitted meanwhile: within this window once
 * the previous window's weight has fallen enough, or else in the next one, once this window's has.
 */
function retryAfter(policy: RateLimitPolicy, counts: WindowCounts, nowMs: number): number {
  const windowMs = policy.windowSeconds * 1000;
  const startMs = windowStartOf(policy, nowMs) * 1000;
  const room = policy.quota - 1;
  let atMs: number;
  // Asked only once the quota is spent, so a window with room left means the previous window's share fills it: with
  // counts.current <= room, counts.previous is above 0.
  if (counts.current <= room) {
    atMs = startMs + windowMs * (1 - (room - counts.current) / counts.previous);
  } else {
    atMs = startMs + windowMs + windowMs * Math.max(0, 1 - room / Math.max(1, counts.current));
  }
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers, structured fields): the policy (`q` requests per
 * `w` seconds), what is left of it (`r`) and in how many seconds the quota is back (`t`), each under the policy's name.
 */
export function rateLimitHeaders(
  name: string,
  policy: RateLimitPolicy,
  decision: RateDecision,
): Record<string, string> {
  return {
    'ratelimit-policy': `"${name}";q=${policy.quota};w=${policy.windowSeconds}`,
    ratelimit: `"${name}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}
