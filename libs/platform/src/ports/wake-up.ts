/**
 * In-process signal that new work is waiting: whoever creates work notifies, an idle runner listens and stops
 * waiting. Other replicas learn of the work at their next poll.
 */
export class WakeUp {
  private readonly listeners = new Set<() => void>();

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  /** Calls `listener` on every notification until the returned function is called. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
