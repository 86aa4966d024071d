import { getHeapStatistics } from 'node:v8';
import type { Logger } from './logger';

/** Share of the heap limit in use above which the node warns. */
const HEAP_WARN_SHARE = 0.85;
const CHECK_EVERY_MS = 30_000;
const WARN_AT_MOST_EVERY_MS = 10 * 60_000;

type HeapStatistics = Pick<
  ReturnType<typeof getHeapStatistics>,
  'used_heap_size' | 'heap_size_limit'
>;

/** The warning for a heap this full, or undefined when there is room. */
export function heapWarning(
  stats: HeapStatistics,
): { usedMb: number; limitMb: number } | undefined {
  if (stats.used_heap_size < HEAP_WARN_SHARE * stats.heap_size_limit) return undefined;
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  return { usedMb: mb(stats.used_heap_size), limitMb: mb(stats.heap_size_limit) };
}

/**
 * Warns (at most every ten minutes) when the heap nears its limit, before a node that outgrew its
 * budget stops: the operator can restart it with a larger --max-heap-mb in time. Returns a stop
 * function; the timer does not keep the process alive.
 */
export function watchHeap(
  log: Logger,
  readStats: () => HeapStatistics = getHeapStatistics,
  checkEveryMs = CHECK_EVERY_MS,
): () => void {
  let warnedAt = Number.NEGATIVE_INFINITY;
  const timer = setInterval(() => {
    const warning = heapWarning(readStats());
    if (warning === undefined || Date.now() - warnedAt < WARN_AT_MOST_EVERY_MS) return;
    warnedAt = Date.now();
    log.warn(warning, 'the heap is close to its limit: restart with a larger --max-heap-mb');
  }, checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}
