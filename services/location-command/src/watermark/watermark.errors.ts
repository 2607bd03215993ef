import { DomainError } from '@lx/domain';

/** Which wait of a fence ran out: for the writes in flight, or for the relay to publish the log up to the fence. */
export type FenceStep = 'writes' | 'publication';

/**
 * A watermark fence could not finish in time (503 SERVICE_UNAVAILABLE): a transaction that began before it did not
 * end in time, or the relay did not publish the event log up to the fence (Kafka down, relay stopped). No watermark
 * is handed out; the caller retries later. A fence that was stored before a wait timed out stays in place, which is
 * harmless: writes after it are timed after it anyway.
 */
export class WatermarkFenceTimeoutError extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';
  declare readonly details: { step: FenceStep; timeoutMs: number };

  constructor(step: FenceStep, timeoutMs: number) {
    super(
      step === 'writes'
        ? `the watermark fence waited ${timeoutMs} ms for writes in flight; retry later`
        : `the event log was not published up to the watermark fence within ${timeoutMs} ms; retry later`,
      { step, timeoutMs },
    );
  }
}
