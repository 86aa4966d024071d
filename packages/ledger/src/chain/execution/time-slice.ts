/**
 * The event loop given back during long synchronous work (issue 44, item 4; docs/decisions.md,
 * "No step of a block holds the event loop"): a block of 10,000 operations takes a few hundred ms
 * to make, settle and write, and a follower's pool re-check costs in proportion to the pool, which
 * would stall RPC, gossip and the producer's own timer for as long. Work in steps calls `pause()`
 * between them (every few hundred items, each step a few ms at most); it yields (one setImmediate)
 * only once `budgetMs` has passed since the last yield, so a small block never yields and a sync of
 * small blocks pays nothing. A hold is then at most the budget plus one step; a call that arrives
 * meanwhile waits for the rest of the slice, so the slice is short: 5 ms (10 ms left getBlockCount's
 * p99 at 22-24 ms under the burst bench, against its 20 ms bound).
 */
export class TimeSlice {
  private since = performance.now();

  constructor(private readonly budgetMs = TIME_SLICE_MS) {}

  /** True when the slice is spent (checked by loops every few hundred items). */
  get due(): boolean {
    return performance.now() - this.since >= this.budgetMs;
  }

  /** `pause` as a function of its own, for code that takes a `Pause` (the state's, below chain/). */
  readonly pause = async (): Promise<void> => {
    if (!this.due) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  };
}

/** Milliseconds of synchronous work between two yields. */
export const TIME_SLICE_MS = 5;

/**
 * Tasks run one after another, each starting a turn of the event loop after the one before it
 * ended (one setImmediate), so that I/O and timers run between them. The calls of one JSON-RPC
 * batch all resolve their reads together: without it, a batch of 100 getBlockInfo over stored
 * blocks of 10,000 operations decoded them back to back and held the loop 5.5 s (issue 44, the
 * burst bench's check of what was mined).
 */
export class OneTaskPerTurn {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.then(nextTurn, nextTurn);
    return result;
  }
}

function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
