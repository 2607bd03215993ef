/** How long work shows its progress: the CLI draws a bar on a terminal and prints lines otherwise. */
export interface Progress {
  /** A new phase, with its total when known. */
  start(phase: string, total?: number): void;
  update(done: number, total?: number): void;
  stop(): void;
}

export const SILENT_PROGRESS: Progress = { start: () => undefined, update: () => undefined, stop: () => undefined };
