/**
 * The event loop given back during long synchronous work (issue 44, item 4): a block of 10,000
 * operations takes a few hundred ms to make, settle and write, which would stall RPC, gossip and
 * the producer's own timer for as long. Work in steps calls `pause()` between them; it yields (one
 * setImmediate) only once `budgetMs` has passed since the last yield, so a small block never
 * yields and a sync of small blocks pays nothing.
 */
export class TimeSlice {
  private since = performance.now();

  constructor(private readonly budgetMs = 20) {}

  /** True when the slice is spent (checked by loops every few hundred items). */
  get due(): boolean {
    return performance.now() - this.since >= this.budgetMs;
  }

  async pause(): Promise<void> {
    if (!this.due) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}
