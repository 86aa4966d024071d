import type { ChainStore } from '../storage/store';

/**
 * The operations in the stored blocks: what a peer replaying this chain from block 0 would apply,
 * the estimate a joining node weighs against a snapshot's records (snap sync). Counted from the
 * operation index the first time it is asked for, in the background (until then it is unknown),
 * then moved by each commit and rollback. An estimate: a commit during the count may be counted
 * twice or not at all, and a node restored from a snapshot counts the blocks it holds.
 */
/** Keys read per step of the count. */
const COUNT_BATCH = 10_000;

export class OperationTally {
  private counted: number | undefined;
  private counting = false;
  /** Operations committed minus rolled back since this tally was made. */
  private moved = 0;

  /** A block of `count` operations committed (negative: rolled back). */
  add(count: number): void {
    this.moved += count;
  }

  /** The estimate; undefined until a count (started by the first call) is done. */
  value(store: ChainStore | undefined): number | undefined {
    if (this.counted !== undefined) return this.counted + this.moved;
    if (!this.counting && store !== undefined) void this.count(store);
    return undefined;
  }

  private async count(store: ChainStore): Promise<void> {
    this.counting = true;
    const movedBefore = this.moved;
    let keys = 0;
    // Keys only, as bytes (not decoded to text), in batches: a pass costs little beside the node.
    const iterator = store.ops.keys({ keyEncoding: 'view' });
    try {
      for (;;) {
        const batch = await iterator.nextv(COUNT_BATCH);
        if (batch.length === 0) break;
        keys += batch.length;
      }
      this.counted = keys - movedBefore;
    } catch {
      // The store closed meanwhile: asked again, it counts again.
    } finally {
      this.counting = false;
      await iterator.close().catch(() => undefined);
    }
  }
}
