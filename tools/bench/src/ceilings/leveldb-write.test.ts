import { describe, expect, it } from 'vitest';
import { measureSyncedBatchWrites } from './leveldb-write.js';

describe('LevelDB write ceiling', () => {
  it('writes synced batches for at least the given time and reports puts and batches per second', async () => {
    const rate = await measureSyncedBatchWrites({ putsPerBatch: 50, valueBytes: 100, minMs: 200 });

    expect(rate.seconds).toBeGreaterThanOrEqual(0.2);
    expect(rate.puts % 50).toBe(0);
    expect(rate.putsPerSec).toBeCloseTo(rate.puts / rate.seconds, 6);
    expect(rate.batchesPerSec * 50).toBeCloseTo(rate.putsPerSec, 6);
  });
});
