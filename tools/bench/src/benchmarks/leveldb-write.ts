/**
 * Reference figures for the storage the node writes to (issue 8's third ceiling): LevelDB chained
 * batches with `sync: true`, as the node commits a block (many puts, one fsync) and a journal group
 * (few puts, one fsync). No target: they bound what block commits and sendTo acknowledgements can
 * reach on this disk.
 */
import { defineBenchmark, type Figure, referenceFigure } from '../benchmark.js';
import { measureSyncedBatchWrites } from '../ceilings/leveldb-write.js';

/** About what a block of 1,000 transfers writes: operation index, accounts, block, undo. */
export const BLOCK_LIKE_BATCH = { putsPerBatch: 1_000, valueBytes: 100 } as const;
/** A journal group commit: one record. */
export const JOURNAL_LIKE_BATCH = { putsPerBatch: 1, valueBytes: 200 } as const;
const MEASURE_MS = 3_000;

export default defineBenchmark({
  name: 'leveldb-write',
  description:
    'LevelDB chained-batch writes with sync: true (the node settings): puts/s and batches/s',
  async run(ctx): Promise<Figure[]> {
    ctx.log(`  batches of ${BLOCK_LIKE_BATCH.putsPerBatch} puts, sync: true`);
    const block = await measureSyncedBatchWrites({ ...BLOCK_LIKE_BATCH, minMs: MEASURE_MS });
    ctx.log(`  batches of ${JOURNAL_LIKE_BATCH.putsPerBatch} put, sync: true`);
    const journal = await measureSyncedBatchWrites({ ...JOURNAL_LIKE_BATCH, minMs: MEASURE_MS });
    return [
      referenceFigure({
        name: `leveldb puts, batches of ${BLOCK_LIKE_BATCH.putsPerBatch}, sync`,
        value: block.putsPerSec,
        unit: 'puts/s',
      }),
      referenceFigure({
        name: 'leveldb synced batches of 1 put',
        value: journal.batchesPerSec,
        unit: 'batches/s',
      }),
    ];
  },
});
