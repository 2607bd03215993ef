/** Failed client authentications of one client id in the current fixed window. */
export interface FailureCounter {
  windowStart: Date;
  failures: number;
}

export interface ThrottlePolicy {
  /** Failures in one window after which further attempts are refused until the window ends. */
  limit: number;
  windowSeconds: number;
}

/**
 * Seconds until the client id may try again, or null when it may try now. A window that has ended no longer
 * counts, so a client that then authenticates correctly is not locked out.
 */
export function retryAfterSeconds(counter: FailureCounter | null, now: Date, policy: ThrottlePolicy): number | null {
  if (counter === null || counter.failures < policy.limit) return null;
  const windowEnd = counter.windowStart.getTime() + policy.windowSeconds * 1000;
  const remainingMs = windowEnd - now.getTime();
  return remainingMs > 0 ? Math.ceil(remainingMs / 1000) : null;
}
