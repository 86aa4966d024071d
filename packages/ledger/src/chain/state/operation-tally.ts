import type { ChainBatch, ChainStore } from '../storage/store';

/**
 * The operations in the stored blocks: what a peer replaying this chain from block 0 would apply,
 * the estimate a joining node weighs against a snapshot's records (snap sync). Kept in the data
 * directory (META_OPERATION_COUNT, written in each commit's and rollback's batch) and read at open:
 * a pass over the operation index at every start cost a restart at 10M operations seconds of the
 * LevelDB thread and the event loop (issue 45). A data directory without it (made before it, or
 * restored from a snapshot) is counted from the index the first time it is asked for, in the
 * background (until then it is unknown), and its total written by the next commit. An estimate: a
 * commit during that count may be counted twice or not at all, and a node restored from a snapshot
 * counts the blocks it holds.
 */
/** Keys read per step of the count. */
const COUNT_BATCH = 10_000;
/** The tally's total (u64 LE) as of the head block. */
export const META_OPERATION_COUNT = 'operation-count';

export class OperationTally {
  private counted: number | undefined;
  private counting = false;
  /** Operations committed minus rolled back since this tally was made. */
  private moved = 0;

  /** Takes the total the data directory holds; without one, it is counted when first asked. */
  async load(store: ChainStore): Promise<void> {
    const stored = await store.read(store.meta, META_OPERATION_COUNT);
    this.moved = 0;
    this.counted =
      stored === undefined || stored.byteLength !== 8
        ? undefined
        : Number(new DataView(stored.buffer, stored.byteOffset, 8).getBigUint64(0, true));
  }

  /**
   * A block of `count` operations committed by `batch` (negative: rolled back); once the total is
   * known, `batch` also writes it.
   */
  add(count: number, batch?: ChainBatch, store?: ChainStore): void {
    this.moved += count;
    if (batch === undefined || store === undefined || this.counted === undefined) return;
    const total = new Uint8Array(8);
    new DataView(total.buffer).setBigUint64(
      0,
      BigInt(Math.max(0, this.counted + this.moved)),
      true,
    );
    batch.put(META_OPERATION_COUNT, total, { sublevel: store.meta });
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
    const iterator = store.opIndex.keys();
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
