import { DomainError } from '@lx/domain';

/** A partition the read model has not applied up to the end offset a caught-up snapshot waits for. */
export interface PartitionBehind {
  partition: number;
  /** The stored next offset to apply; null when the read model has applied nothing of the partition yet. */
  applied: string | null;
  /** The partition's end offset (high watermark) when the request arrived. */
  end: string;
}

/**
 * A snapshot asked to catch up could not (503 SERVICE_UNAVAILABLE): the read model did not apply the topic up to its
 * end offsets within the timeout (the projection lags or is failing), or the event log could not be asked for them.
 * No snapshot is opened, so the caller never gets one that may miss a change; it retries later.
 */
export class SnapshotCatchUpError extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';

  private constructor(message: string, details: Record<string, unknown>) {
    super(message, details);
  }

  static timedOut(topic: string, timeoutMs: number, behind: readonly PartitionBehind[]): SnapshotCatchUpError {
    return new SnapshotCatchUpError(
      `the read model did not catch up with ${topic} within ${timeoutMs} ms; retry later`,
      { topic, timeoutMs, behind: [...behind] },
    );
  }

  static eventLogUnavailable(topic: string): SnapshotCatchUpError {
    return new SnapshotCatchUpError(`the end offsets of ${topic} cannot be read from the event log; retry later`, {
      topic,
    });
  }
}
