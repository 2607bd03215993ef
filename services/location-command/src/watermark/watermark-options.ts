/** Settings of the watermark fence (WATERMARK_* variables). */
export interface WatermarkOptions {
  /** Longest wait for the write transactions in flight; new writes wait behind the fence meanwhile. */
  lockTimeoutMs: number;
  /** Longest wait, once the fence committed, until the relay has published every outbox row up to it. */
  publishTimeoutMs: number;
  /** Pause between two looks at the outbox while waiting for the relay. */
  pollIntervalMs: number;
}

export const WATERMARK_OPTIONS = Symbol('WATERMARK_OPTIONS');

/** Pause between two looks at the outbox: the relay publishes within milliseconds when it keeps up. */
export const WATERMARK_POLL_INTERVAL_MS = 10;
