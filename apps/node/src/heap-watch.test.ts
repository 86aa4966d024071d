import { describe, expect, it } from 'vitest';
import { heapWarning, watchHeap } from './heap-watch';
import type { Logger } from './logger';

const MB = 2 ** 20;

describe('heap watch', () => {
  it('warns from 85% of the limit on, with the sizes in MB', () => {
    expect(heapWarning({ used_heap_size: 200 * MB, heap_size_limit: 256 * MB })).toBeUndefined();
    expect(heapWarning({ used_heap_size: 218 * MB, heap_size_limit: 256 * MB })).toEqual({
      usedMb: 218,
      limitMb: 256,
    });
  });

  it('logs a full heap once, not at every check', async () => {
    const warnings: unknown[] = [];
    const log = { warn: (obj: unknown) => warnings.push(obj) } as unknown as Logger;
    const stop = watchHeap(log, () => ({ used_heap_size: 250 * MB, heap_size_limit: 256 * MB }), 5);
    await new Promise((resolve) => setTimeout(resolve, 60));
    stop();
    expect(warnings).toEqual([{ usedMb: 250, limitMb: 256 }]);
  });
});
