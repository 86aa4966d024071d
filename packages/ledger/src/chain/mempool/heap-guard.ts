import { getHeapStatistics } from 'node:v8';

/** Share of V8's heap limit in use beyond which the mempool refuses new operations. */
export const HEAP_REFUSE_SHARE = 0.9;
/** The heap is read at most this often (a read costs microseconds; admission runs per call). */
const SAMPLE_EVERY_MS = 50;

type HeapStatistics = Pick<
  ReturnType<typeof getHeapStatistics>,
  'used_heap_size' | 'heap_size_limit'
>;

/**
 * Keeps the node inside its heap: when the heap nears its limit (the node's --max-heap-mb), the
 * mempool refuses new operations (MEMPOOL_FULL: retry after the next block) and the state caches
 * give up their older half, rather than the process dying of an out-of-memory error. Everything
 * else in memory is bounded by its own limit; these two grow with load.
 */
export class HeapGuard {
  private checkedAt = Number.NEGATIVE_INFINITY;
  private short = false;
  /** Times the guard found the heap short (metrics, tests). */
  shortages = 0;

  /**
   * `limitBytes`: the old generation's limit (ChainOptions.heapLimitBytes); V8's heap_size_limit
   * when it is lower or not given.
   */
  constructor(
    private readonly onShort: () => void,
    private readonly limitBytes: number = Number.POSITIVE_INFINITY,
    private readonly readStats: () => HeapStatistics = getHeapStatistics,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when the heap is too full to take more pending operations. */
  isShort(): boolean {
    const now = this.now();
    if (now - this.checkedAt < SAMPLE_EVERY_MS) return this.short;
    this.checkedAt = now;
    const stats = this.readStats();
    const limit = Math.min(this.limitBytes, stats.heap_size_limit);
    this.short = stats.used_heap_size > HEAP_REFUSE_SHARE * limit;
    if (this.short) {
      this.shortages++;
      this.onShort();
    }
    return this.short;
  }
}
