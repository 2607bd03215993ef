/** Settings of the watermark fence (WATERMARK_* variables). */
export interface WatermarkOptions {
  /** Longest wait for the transactions in flight when the fence was stored to end (writes never wait for a fence). */
  lockTimeoutMs: number;
  /** Longest wait, once they have, until the relay has published every event up to the fence. */
  publishTimeoutMs: number;
  /** Pause between two looks at the transactions in flight and at the relay's checkpoint while waiting. */
  pollIntervalMs: number;
}

export const WATERMARK_OPTIONS = Symbol('WATERMARK_OPTIONS');

/** Pause between two looks: transactions end and the relay publishes within milliseconds when it keeps up. */
export const WATERMARK_POLL_INTERVAL_MS = 10;
