/** Settings of the internal snapshot stream (SNAPSHOT_* variables and the projection's consumer group). */
export interface SnapshotOptions {
  /** Rows fetched from the snapshot cursor per round: the stream's memory bound. */
  fetchRows: number;
  /** Longest wait of a `catchUp` snapshot for the read model to reach the topic's end offsets. */
  catchUpTimeoutMs: number;
  /** The read model's consumer group: its stored offsets say how far the read model has applied the topic. */
  projectionGroupId: string;
  /** Pause between two looks at the stored offsets while catching up. */
  catchUpPollIntervalMs: number;
}

export const SNAPSHOT_OPTIONS = Symbol('SNAPSHOT_OPTIONS');

/** Pause between two looks at the stored offsets: a projection that keeps up applies a batch within milliseconds. */
export const CATCH_UP_POLL_INTERVAL_MS = 20;
