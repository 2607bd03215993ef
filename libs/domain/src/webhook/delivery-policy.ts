import { parseRetryAfter } from '@lx/contracts';

/**
 * What the dispatcher does with the result of one webhook attempt: the spec's table (200/202 delivered, 400 never
 * retried, 401/429/500 retried with backoff), completed for every other status and for transport failures.
 */

/** How an attempt ended before any reply, as the HTTP client reports it. */
export type TransportFailure =
  /** No connection within the connect timeout, or no complete reply within the response timeout. */
  | 'timeout'
  /** Refused, reset, unreachable, or the name did not resolve. */
  | 'connection'
  /** The TLS handshake failed (certificate, protocol). */
  | 'tls'
  /** The host resolved to, or the socket connected to, an address the SSRF guard does not allow. */
  | 'address-not-allowed';

/** The result of one attempt: a reply with its status (and Retry-After), or a transport failure. */
export type AttemptResult =
  { kind: 'reply'; status: number; retryAfter?: string } | { kind: 'failure'; failure: TransportFailure };

/** Why an attempt will be retried; a label of the attempts metric. */
export type RetryReason =
  'unauthorized' | 'rate-limited' | 'server-error' | 'redirect' | 'client-error' | 'timeout' | 'connection' | 'tls';

/** Why a delivery ends without success and without retry. */
export type FinalFailure = 'rejected' | 'gone' | 'address-not-allowed';

export type Verdict =
  /** 2xx: delivered. */
  | { type: 'delivered' }
  /** No retry: 400 (the RSP rejected the data), 410 (the endpoint is gone: disable it), or an address refused. */
  | { type: 'failed'; reason: FinalFailure }
  /** Retried on the schedule; `notBeforeMs` is the Retry-After lower bound when the reply had one. */
  | { type: 'retry'; reason: RetryReason; notBeforeMs?: number };

/** Longest Retry-After honoured; a larger value is cut to it, so a bad header cannot park a delivery for weeks. */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * The verdict on one attempt. Every 2xx is success (the spec names 200 and 202; 201 and 204 mean the same to a
 * receiver). 3xx is not followed (a redirect could lead the signed request anywhere) and is retried like other
 * client errors: the RSP may fix its URL. 401 is retried and counted as a credentials problem. 429 and 503 honour
 * Retry-After. Only 400 and 410 end a delivery at once.
 */
export function judgeAttempt(result: AttemptResult, nowMs: number): Verdict {
  if (result.kind === 'failure') {
    return result.failure === 'address-not-allowed'
      ? { type: 'failed', reason: 'address-not-allowed' }
      : { type: 'retry', reason: result.failure };
  }
  const { status } = result;
  if (status >= 200 && status < 300) return { type: 'delivered' };
  if (status === 400) return { type: 'failed', reason: 'rejected' };
  if (status === 410) return { type: 'failed', reason: 'gone' };
  const reason: RetryReason =
    status === 401
      ? 'unauthorized'
      : status === 429
        ? 'rate-limited'
        : status >= 500
          ? 'server-error'
          : status >= 300 && status < 400
            ? 'redirect'
            : 'client-error';
  const notBeforeMs =
    result.retryAfter === undefined ? undefined : parseRetryAfter(result.retryAfter, nowMs, MAX_RETRY_AFTER_MS);
  return notBeforeMs === undefined ? { type: 'retry', reason } : { type: 'retry', reason, notBeforeMs };
}

/** When the attempts after the first happen: delays from the previous attempt, and how much each is jittered. */
export interface RetrySchedule {
  /** Delay before attempt 2, 3, …; its length + 1 is the number of attempts. */
  readonly delaysMs: readonly number[];
  /** Each delay is drawn uniformly from delay × (1 ± jitter); 0 ≤ jitter < 1. */
  readonly jitter: number;
}

/**
 * The default schedule (as Svix's): 8 attempts — at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h —
 * about 27.6 hours in all, each delay ±20 %.
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  delaysMs: [5, 300, 1800, 7200, 18_000, 36_000, 36_000].map((seconds) => seconds * 1000),
  jitter: 0.2,
};

/**
 * The wait before the next attempt after attempt number `attempt` (from 1) failed with `verdict`, or undefined when
 * the schedule is used up (the delivery is DEAD). `random` is a draw from [0, 1). Retry-After is a lower bound.
 */
export function nextAttemptDelay(
  schedule: RetrySchedule,
  attempt: number,
  verdict: Extract<Verdict, { type: 'retry' }>,
  random: number,
): number | undefined {
  const base = schedule.delaysMs[attempt - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 + schedule.jitter * (2 * random - 1)));
  return Math.max(jittered, verdict.notBeforeMs ?? 0);
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration such as `500ms`, `5s`, `30m`, `2h`, `1d` in ms; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (match === null) return undefined;
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}
