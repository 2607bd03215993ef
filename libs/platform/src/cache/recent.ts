/**
 * The result of `load`, reused for `freshMs` after it was loaded: for reads that many callers make at once and that
 * may be a moment old (keys, the revocation list, catalog sizes). Callers meanwhile share the one load in flight; a
 * load that fails is forgotten at once, so the next call tries again.
 */
export class Recent<T> {
  private cached?: { value: Promise<T>; at: number };

  constructor(
    private readonly freshMs: number,
    private readonly load: () => Promise<T>,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    const now = this.now();
    if (this.cached === undefined || now - this.cached.at > this.freshMs) {
      const value = this.load();
      this.cached = { value, at: now };
      value.catch(() => {
        if (this.cached?.value === value) this.cached = undefined;
      });
    }
    return this.cached.value;
  }

  /** The next get() loads again (after a change made in this process). */
  forget(): void {
    this.cached = undefined;
  }
}
