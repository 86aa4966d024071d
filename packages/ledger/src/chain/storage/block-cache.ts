import type { LoadedBlock } from '../chain-records';

const BLOCK_CACHE_SIZE = 32;

/**
 * Recent blocks kept decoded (queries, rollback), bounded by blocks and by operations: 32 full blocks
 * of a busy chain would hold hundreds of thousands of decoded operations. The oldest go first.
 */
export class BlockCache {
  private readonly blocks = new Map<number, LoadedBlock>();

  /** @param maxOperations most operations the cached blocks may hold together (the newest is kept) */
  constructor(private readonly maxOperations: number) {}

  get(height: number): LoadedBlock | undefined {
    return this.blocks.get(height);
  }

  set(height: number, loaded: LoadedBlock): void {
    const blocks = this.blocks;
    blocks.delete(height);
    let operations = loaded.ops.length;
    for (const cached of blocks.values()) operations += cached.ops.length;
    for (const [oldest, cached] of blocks) {
      if (blocks.size < BLOCK_CACHE_SIZE && operations <= this.maxOperations) break;
      blocks.delete(oldest);
      operations -= cached.ops.length;
    }
    blocks.set(height, loaded);
  }

  delete(height: number): void {
    this.blocks.delete(height);
  }
}
